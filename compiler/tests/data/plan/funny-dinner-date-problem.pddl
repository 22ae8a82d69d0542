(define (problem funny-dinner-date-1) (:domain funny-dinner-date)
  (:init (garbage) (clean-hands) (quiet) (work-pending))
  (:goal (and (dinner) (present) (garb-out) (work-done))))
