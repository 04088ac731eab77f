//go:build !race

package join_test

const raceEnabled = false
