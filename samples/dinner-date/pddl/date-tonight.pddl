; A problem for the PDDL dinner date; a Plan state can name it: `date-tonight`.
(define (problem date-tonight) (:domain dinner-date-pddl)
  (:init (garbage) (clean-hands) (quiet))
  (:goal (and (dinner) (present) (garb-out))))
