package wefttemporal

import "github.com/weftrt/weft/slots"

// Temporal's release reasons. The SDK declares them in its internal
// package (SlotReleaseReasonTaskProcessed and SlotReleaseReasonUnused, an
// iota from 0 in go.temporal.io/sdk/internal/tuning.go) and exports
// neither the type nor the constants, so they are named here by value;
// TestReleaseReasonsMatchTheSDK checks them against a real worker.
const (
	temporalTaskProcessed = 0
	temporalUnused        = 1
)

// releaseReason maps a Temporal release reason to weft's: a processed task
// completed, an unused slot was never used. A reason this package does
// not know (a newer SDK's) is reported as a completion, the reason that
// asks nothing of a supplier.
func releaseReason(temporal int) slots.ReleaseReason {
	if temporal == temporalUnused {
		return slots.NeverUsed()
	}
	return slots.TaskComplete()
}
