(define (problem shop-1) (:domain shop)
  (:objects npc - agent)
  (:init (in-stock))
  (:goal (has npc)))
