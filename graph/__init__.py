"""Graph wiring: the builder that assembles the nodes and the pure routing functions between them."""
