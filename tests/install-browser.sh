#!/bin/sh
# Installs the browser that tests/test_browser.py drives: Debian's Chromium.
# Nothing to do when a Chromium or Chrome is on the PATH, or YANIV_AUDIT_CHROMIUM names one.
# Where it cannot install one (no apt-get, or apt-get fails) it says what to install and
# exits 0, so that the command chain goes on: the browser tests then fail, saying why.
[ -n "${YANIV_AUDIT_CHROMIUM:-}" ] && exit 0
for browser in chromium chromium-browser google-chrome google-chrome-stable; do
  command -v "$browser" >/dev/null 2>&1 && exit 0
done

explain() {
  cat >&2 <<'EOF'
install-browser.sh: no Chromium or Chrome found, and it could not install one.
The browser tests (tests/test_browser.py) need one; the other tests do not. Install one:
  Debian, Ubuntu:  sudo apt-get install chromium        (or chromium-browser)
  Fedora:          sudo dnf install chromium
  Arch:            sudo pacman -S chromium
  macOS:           brew install --cask chromium         (or install Google Chrome)
or set YANIV_AUDIT_CHROMIUM to the path of a Chromium or Chrome executable.
EOF
  exit 0
}

command -v apt-get >/dev/null 2>&1 || explain
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || explain
  sudo="sudo"
fi
echo "installing Chromium for the browser tests (apt-get install chromium)" >&2
$sudo apt-get update -qq || explain
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null || explain
exit 0
