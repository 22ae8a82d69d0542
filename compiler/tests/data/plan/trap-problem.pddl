; Relaxed-reachable but unsolvable: buying needs stock, and the NPC must buy twice.
(define (problem shop-trap) (:domain shop)
  (:objects npc other - agent)
  (:init (in-stock))
  (:goal (and (has npc) (has other) (in-stock))))
