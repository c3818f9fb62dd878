"""Run every demo incident against a real local model and print outcome, calls, tokens, time.

    scripts/local-model.sh start
    HARNESS_LOCAL_MODEL_URL=http://127.0.0.1:8089/v1 python scripts/smoke_local_model.py [ID…]
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from test_local_model import LOCAL_SETTINGS  # noqa: E402

from app.runner import Services, run_turn  # noqa: E402
from harness.settings import load_settings  # noqa: E402
from tools.dataset.build import demo_dataset_dir  # noqa: E402


def main() -> None:
    url = os.environ["HARNESS_LOCAL_MODEL_URL"]
    truth = json.loads((demo_dataset_dir() / "truth.json").read_text())
    cases = truth["incidents"] + truth["no_evidence"]
    if sys.argv[1:]:
        cases = [c for c in cases if c["id"] in sys.argv[1:]]
    home = Path(tempfile.mkdtemp(prefix="smoke-"))
    services = Services.from_settings(load_settings(home=home, OPENAI_BASE_URL=url,
                                                    **LOCAL_SETTINGS))
    print("id\texpected\toutcome\tfallback/failure\tstop\tmodel_calls\ttool_calls\ttokens\twall_s")
    for case in cases:
        began = time.monotonic()
        out = asyncio.run(run_turn(services, case["question"], checkpointer=InMemorySaver()))
        u = out["usage"]
        print(f"{case['id']}\t{case['expected_outcome']}\t{out['release_outcome']}\t"
              f"{out['fallback_type'] or out['failure_code']}\t{out['stop_reason']}\t"
              f"{u['model_calls']}\t{u['tool_calls']}\t{u['input_tokens'] + u['output_tokens']}\t"
              f"{time.monotonic() - began:.0f}", flush=True)


if __name__ == "__main__":
    main()
