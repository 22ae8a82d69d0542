; The classical dinner date (Weld 1999), HSP's positive encoding: `garb-out` stands for
; "not garbage" (Lozano et al. 2002, §2.1; research digest T1). Optimal length 3, six optimal plans.
(define (domain dinner-date)
  (:requirements :strips)
  (:predicates (garbage) (clean-hands) (quiet) (dinner) (present) (garb-out))
  (:action cook  :parameters () :precondition (clean-hands) :effect (dinner))
  (:action wrap  :parameters () :precondition (quiet)       :effect (present))
  (:action carry :parameters () :precondition (and)
     :effect (and (garb-out) (not (garbage)) (not (clean-hands))))
  (:action dolly :parameters () :precondition (and)
     :effect (and (garb-out) (not (garbage)) (not (quiet)))))
