; T10's situation as a fresh problem: the player bought the last weapon. Unsolvable.
(define (problem shop-sold-out) (:domain shop)
  (:objects npc player - agent)
  (:init (door-open) (inside player) (has player))
  (:goal (has npc)))
