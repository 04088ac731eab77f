package wefttemporal

import "strconv"

// SlotType names the kind of task a Temporal slot is for. A Supplier is
// made for one slot type; it is the Kind a weft supplier sees in
// slots.ReserveContext.Kind and slots.TaskInfo.Kind, so that one weft
// supplier serving several slot types can tell them apart.
type SlotType uint8

const (
	// Workflow slots run workflow tasks (worker.Options'
	// MaxConcurrentWorkflowTaskExecutionSize without a tuner).
	Workflow SlotType = iota
	// Activity slots run activity tasks, polled or eager.
	Activity
	// LocalActivity slots run local activities.
	LocalActivity
	// Nexus slots run Nexus operation tasks.
	Nexus
	// SessionActivity slots run activities within sessions.
	SessionActivity

	numSlotTypes = iota
)

var slotTypeNames = [numSlotTypes]string{
	Workflow:        "workflow",
	Activity:        "activity",
	LocalActivity:   "local-activity",
	Nexus:           "nexus",
	SessionActivity: "session-activity",
}

// String returns "workflow", "activity", "local-activity", "nexus" or
// "session-activity": the Kind a weft supplier sees.
func (t SlotType) String() string {
	if t < numSlotTypes {
		return slotTypeNames[t]
	}
	return "SlotType(" + strconv.Itoa(int(t)) + ")"
}

func (t SlotType) valid() bool { return t < numSlotTypes }
