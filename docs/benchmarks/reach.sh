#!/usr/bin/env bash
# `ensemble reach` beside random play: for each sample target, the search's wall time and the
# time random play (seeds 0, 1, 2, … until the target happens; in a conversation, player lines
# drawn from the seed) takes within the same budget.
# Usage: bash docs/benchmarks/reach.sh [path/to/ensemble]   (default: target/release/ensemble)
set -u
E=${1:-target/release/ensemble}
LIMIT=${LIMIT:-60}
row() {
  local sample=$1; shift
  local s r
  s=$( { /usr/bin/time -f "%e" "$E" reach "samples/$sample" "$@" --time-limit "$LIMIT" >/tmp/reach.out; } 2>&1 | tail -1)
  local sres; sres=$(grep -E "^(reached|not reached|unreachable)" /tmp/reach.out | sed -E 's/;.*//' | head -1)
  r=$( { /usr/bin/time -f "%e" "$E" reach "samples/$sample" "$@" --time-limit "$LIMIT" --random >/tmp/reach.out; } 2>&1 | tail -1)
  local rres; rres=$(grep -E "^(reached|not reached|unreachable)" /tmp/reach.out | sed -E 's/;.*//' | head -1)
  printf '| %s | %s | %s s: %s | %s s: %s |\n' "$sample" "$*" "$s" "$sres" "$r" "$rres"
}
echo "| sample | target | search | random play |"
echo "| --- | --- | --- | --- |"
row airport --scene ticket-counter --state BuyTicketAtCounter/Finish --agent buyer2
row airport --scene traveller --state Traveller/Stranded
row bench --scene bench --rule bench/fell
row shops --scene market --event '(event: "add", agent: "bakery_till", fact: "sale(player,cake)")'
row street-vendor --scene street --state Friend/Say
row weapon-shop --scene shop --state Customer/Disappointed
row dinner-date --scene date --event '(event: "replan", agent: "host")'
row innkeeper --scene chat --action meet-halfway
row innkeeper --scene chat --action tell-price
row weapon-shop --scene shop --event '(event: "act", agent: "npc", action: "Open(npc, shopdoor)")'
row innkeeper --scene chat --action deal
row innkeeper --scene chat --hmm-state haggle/dealt
