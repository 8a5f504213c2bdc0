#!/bin/sh
# Installs the browser that the browser tests drive (Debian's Chromium), a Korean font
# for their screenshots (Debian's fonts-nanum; Hebrew and Cyrillic come with the default
# fonts), valgrind for the audit's cost gate (tests/test_instructions.py counts
# instructions with callgrind) and axe-core (npm) for the accessibility test. Nothing to do when a Chromium or Chrome is on the PATH (or YANIV_AUDIT_CHROMIUM
# names one) and a Korean font is there.
# Where it cannot install (no apt-get, or apt-get fails) it says what to install and
# exits 0, so that the command chain goes on: the browser tests then fail, saying why.
have_browser() {
  [ -n "${YANIV_AUDIT_CHROMIUM:-}" ] && return 0
  for browser in chromium chromium-browser google-chrome google-chrome-stable; do
    command -v "$browser" >/dev/null 2>&1 && return 0
  done
  return 1
}
have_korean_font() {
  command -v fc-list >/dev/null 2>&1 || return 0  # no fontconfig: not a Linux desktop stack
  [ -n "$(fc-list :lang=ko 2>/dev/null | head -n 1)" ]
}
# axe-core, the accessibility checker tests/web/test_browser_a11y.py runs in the pages, into
# tests/.axe (git-ignored), from npm; without npm it says how to get it
AXE_VERSION=4.14.1
axe_dir="${0%/*}/.axe"  # no dirname: the PATH may hold nothing
if [ ! -f "$axe_dir/node_modules/axe-core/axe.min.js" ]; then
  if command -v npm >/dev/null 2>&1; then
    npm install --silent --no-audit --no-fund --prefix "$axe_dir" "axe-core@$AXE_VERSION" \
      >/dev/null 2>&1 || echo "install-browser.sh: npm could not install axe-core@$AXE_VERSION into $axe_dir (no registry?): the accessibility test will fail saying so" >&2
  else
    echo "install-browser.sh: no npm, so no axe-core for the accessibility test: install Node.js and npm (Debian: apt-get install npm), or put axe.min.js of axe-core $AXE_VERSION in $axe_dir/node_modules/axe-core/" >&2
  fi
fi

have_browser && have_korean_font && command -v valgrind >/dev/null 2>&1 && exit 0

explain() {
  cat >&2 <<'EOF2'
install-browser.sh: no Chromium or Chrome (or no Korean font, or no valgrind) found, and it
could not install it. The browser tests need a browser, the cost gate valgrind; the other
tests need neither. Install them (valgrind: apt-get install valgrind):
  Debian, Ubuntu:  sudo apt-get install chromium fonts-nanum   (or chromium-browser)
  Fedora:          sudo dnf install chromium naver-nanum-gothic-fonts
  Arch:            sudo pacman -S chromium ttf-nanum
  macOS:           brew install --cask chromium         (or install Google Chrome)
or set YANIV_AUDIT_CHROMIUM to the path of a Chromium or Chrome executable.
EOF2
  exit 0
}

command -v apt-get >/dev/null 2>&1 || explain
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || explain
  sudo="sudo"
fi
packages=""
have_browser || packages="chromium"
have_korean_font || packages="$packages fonts-nanum"
command -v valgrind >/dev/null 2>&1 || packages="$packages valgrind"
echo "installing $packages for the browser tests and the cost gate (apt-get install)" >&2
$sudo apt-get update -qq || explain
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $packages >/dev/null || explain
exit 0
