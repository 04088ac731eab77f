//go:build !race

package join

// checkWorker is off outside race-detector builds; see race.go.
const checkWorker = false
