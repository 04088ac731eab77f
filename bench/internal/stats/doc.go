// Package stats summarizes a measurement's repetitions: the median as the
// figure to report, and the spread that says how far to trust it.
//
// The median, not the mean: on a shared machine a repetition is far more
// often slowed down than sped up, and one preempted run would drag a mean
// while it moves a median by one rank at most.
package stats
