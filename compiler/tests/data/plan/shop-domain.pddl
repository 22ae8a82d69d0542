; Inampudi's shop scene (research digest T8), the NPC's action space, with negative
; preconditions. Expected plan: open, walk-in, buy.
(define (domain shop)
  (:requirements :strips :typing :negative-preconditions)
  (:types agent)
  (:predicates (door-open) (inside ?a - agent) (in-stock) (has ?a - agent))
  (:action open :parameters (?a - agent) :precondition (not (door-open)) :effect (door-open))
  (:action close :parameters (?a - agent) :precondition (door-open) :effect (not (door-open)))
  (:action walk-in :parameters (?a - agent)
     :precondition (and (door-open) (not (inside ?a))) :effect (inside ?a))
  (:action buy :parameters (?a - agent)
     :precondition (and (inside ?a) (in-stock)) :effect (and (has ?a) (not (in-stock)))))
