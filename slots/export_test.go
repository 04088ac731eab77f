package slots

// Exported for tests only.

var TraceController func(visible int, u [numResources]float64, k float64, budget int)
