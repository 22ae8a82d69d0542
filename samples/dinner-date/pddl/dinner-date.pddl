; The classical dinner date as PDDL (Weld 1999; HSP's positive encoding, `garb-out` stands for
; "not garbage"): the same domain as ../dinner-date.domain.ron, to show PDDL files inside a
; project. `ensemble check pddl/date-tonight.pddl` checks the problem against this domain.
(define (domain dinner-date-pddl)
  (:requirements :strips)
  (:predicates (garbage) (clean-hands) (quiet) (dinner) (present) (garb-out))
  (:action cook  :parameters () :precondition (clean-hands) :effect (dinner))
  (:action wrap  :parameters () :precondition (quiet)       :effect (present))
  (:action carry :parameters () :precondition (and)
     :effect (and (garb-out) (not (garbage)) (not (clean-hands))))
  (:action dolly :parameters () :precondition (and)
     :effect (and (garb-out) (not (garbage)) (not (quiet)))))
