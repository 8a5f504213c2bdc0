#!/bin/sh
# Installs the browser that tests/test_browser.py drives: Debian's Chromium.
# Nothing to do when a Chromium or Chrome is on the PATH, or YANIV_AUDIT_CHROMIUM names one.
set -e
[ -n "${YANIV_AUDIT_CHROMIUM:-}" ] && exit 0
for browser in chromium chromium-browser google-chrome google-chrome-stable; do
  command -v "$browser" >/dev/null 2>&1 && exit 0
done
if command -v apt-get >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "installing Chromium for the browser tests (apt-get install chromium)" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "the browser tests need Chromium or Chrome: install one, or set YANIV_AUDIT_CHROMIUM" >&2
exit 1
