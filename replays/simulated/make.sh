#!/usr/bin/env bash
# Regenerates the simulated games in this folder (byte-identical on every machine).
set -euo pipefail
cd "$(dirname "$0")"
sim() { yaniv-audit simulate --players "$3" --games "$4" --seed 2026 \
          --bot careful --bot greedy --bot random --rules "$2" --out "$1" --force; }
for preset in israeli classic cardgames-zone namu de-wiki mcleod jhyap; do
  sim "$preset" "$preset" 3 30
done
sim slap-down "israeli(slap_down=true)" 4 10
sim round-ends "israeli(reshuffle=round_ends)" 4 10
sim two-decks "israeli(decks=2)" 6 10
sim ends-of-runs "classic(pickup=ends_of_runs,pile_needs_combo=true)" 4 10
sim caller-starts "israeli(starter=caller)" 4 10
