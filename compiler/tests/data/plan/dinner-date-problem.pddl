(define (problem dinner-date-1) (:domain dinner-date)
  (:init (garbage) (clean-hands) (quiet))
  (:goal (and (dinner) (present) (garb-out))))
