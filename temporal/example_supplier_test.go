package wefttemporal_test

import (
	"fmt"

	"github.com/weftrt/weft/slots"
	wefttemporal "github.com/weftrt/weft/temporal"
	"go.temporal.io/sdk/worker"
)

// One weft supplier beside Temporal's own, in Temporal's composite tuner:
// activities and local activities share a Fixed of 8 (at most 8 of both
// at once), workflow and Nexus tasks keep Temporal's fixed-size suppliers.
func ExampleNewSupplier() {
	shared := slots.NewFixed(8)
	fixed := func(n int) worker.SlotSupplier {
		s, err := worker.NewFixedSizeSlotSupplier(n)
		if err != nil {
			panic(err)
		}
		return s
	}
	tuner, err := worker.NewCompositeTuner(worker.CompositeTunerOptions{
		WorkflowSlotSupplier:        fixed(100),
		ActivitySlotSupplier:        wefttemporal.NewSupplier(wefttemporal.Activity, shared),
		LocalActivitySlotSupplier:   wefttemporal.NewSupplier(wefttemporal.LocalActivity, shared),
		NexusSlotSupplier:           fixed(100),
		SessionActivitySlotSupplier: fixed(100),
	})
	if err != nil {
		panic(err)
	}
	_ = worker.Options{Tuner: tuner} // for worker.New
	fmt.Println("activity slots:", tuner.GetActivityTaskSlotSupplier().MaxSlots())
	fmt.Println("local activity slots:", tuner.GetLocalActivitySlotSupplier().MaxSlots())
	// Output:
	// activity slots: 8
	// local activity slots: 8
}
