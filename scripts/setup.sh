#!/usr/bin/env bash
# Set up a fresh machine: the virtual environment with pinned packages, and the system packages
# (Graphviz for SVG; Chromium for the report's browser test with --browser). What cannot be
# installed is said, and the tool then skips that output and tells so.
set -euo pipefail
cd "$(dirname "$0")/.."
# --browser (the tests): also the extras the tests drive (reference host, Ray, Playwright), Chromium,
# Redis and the official MCP conformance suite (npm, pinned, into .cache/conformance).
want_browser=0
[ "${1:-}" = "--browser" ] && want_browser=1
extras=test
[ "$want_browser" = 1 ] && extras=test,host,cluster,browser

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=.venv/.installed-$extras
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ requirements.lock -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
  .venv/bin/python -m pip install -q -c requirements.lock -e ".[$extras]"
  touch "$stamp"
fi

apt_install() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    if [ ! -f .venv/.apt-updated ]; then apt-get update -qq >/dev/null 2>&1 && touch .venv/.apt-updated || true; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1 || echo "setup: could not install $*"
  else
    echo "setup: not root or no apt-get: cannot install $*"
  fi
}
command -v dot >/dev/null 2>&1 || apt_install graphviz
command -v dot >/dev/null 2>&1 || echo "setup: Graphviz 'dot' missing: SVG diagrams will be skipped (DOT and Mermaid still written)"
if [ "$want_browser" = 1 ] && [ ! -x /usr/bin/chromium ]; then
  apt_install chromium
  [ -x /usr/bin/chromium ] || echo "setup: chromium missing: the report's browser test will be skipped"
fi
if [ "$want_browser" = 1 ] && ! command -v redis-server >/dev/null 2>&1; then
  apt_install redis-server
  command -v redis-server >/dev/null 2>&1 || echo "setup: redis-server missing: the shared example database tests will be skipped"
fi
# --browser: a third-party MCP Tasks server's packages (pyproject's `thirdparty` extra) in a virtual
# environment of their own, .venv-thirdparty: their pins conflict with the lock (tests/live/test_third_party.py).
if [ "$want_browser" = 1 ]; then
  tp=.venv-thirdparty
  tp_stamp=$tp/.installed
  if [ ! -f "$tp_stamp" ] || [ pyproject.toml -nt "$tp_stamp" ]; then
    pins=$(.venv/bin/python -c 'import tomllib; print(" ".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["thirdparty"]))')
    { [ -x $tp/bin/python ] || python3 -m venv $tp; } && $tp/bin/python -m pip install -q $pins >/dev/null 2>&1 \
      && touch "$tp_stamp" || echo "setup: could not install $pins into $tp: the third-party server's tests will be skipped"
  fi
fi
conformance=@modelcontextprotocol/conformance@0.2.0-alpha.12
if [ "$want_browser" = 1 ]; then
  if command -v npm >/dev/null 2>&1; then
    installed=.cache/conformance/node_modules/@modelcontextprotocol/conformance/package.json
    if ! grep -q "\"version\": \"${conformance##*@}\"" "$installed" 2>/dev/null; then
      npm install --prefix .cache/conformance --save-exact --no-audit --no-fund --loglevel=error "$conformance" \
        >/dev/null 2>&1 || echo "setup: could not install $conformance: its live test will be skipped"
    fi
  else
    echo "setup: npm missing: the official MCP conformance suite's live test will be skipped"
  fi
fi
