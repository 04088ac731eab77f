package wefttemporal

import (
	"fmt"

	"github.com/weftrt/weft/slots"
	"go.temporal.io/sdk/worker"
)

// TunerOptions name the weft supplier for each of a worker's slot types.
// A nil one leaves that type to Temporal's default, a fixed-size supplier
// of the SDK's default size (worker.NewFixedSizeTuner with zero options).
// The same weft supplier may be given for several types; it then bounds
// their sum.
type TunerOptions struct {
	Workflow        slots.Supplier
	Activity        slots.Supplier
	LocalActivity   slots.Supplier
	Nexus           slots.Supplier
	SessionActivity slots.Supplier

	// Options apply to every Supplier the tuner makes (WithLeakHook,
	// WithErrorHook).
	Options []Option
}

// Tuner is a Temporal worker.WorkerTuner whose slot suppliers are weft
// suppliers, for worker.Options.Tuner:
//
//	activities := slots.NewPauseable(slots.NewFixed(8))
//	tuner, err := wefttemporal.NewTuner(wefttemporal.TunerOptions{Activity: activities})
//	...
//	w := worker.New(c, "queue", worker.Options{Tuner: tuner})
//	...
//	activities.Pause(slots.PauseOptions{}) // no new activity slot until Resume
//
// A Tuner belongs to one worker: Temporal's own accounting (issued slots,
// its slot metrics) is per worker, and so are the Suppliers' Stats. Make
// one per worker, over shared weft suppliers if the workers share a bound.
type Tuner struct {
	suppliers [numSlotTypes]worker.SlotSupplier
	weft      [numSlotTypes]*Supplier
}

var _ worker.WorkerTuner = (*Tuner)(nil)

// NewTuner returns a Tuner over the weft suppliers in o. The error is
// Temporal's, should it fail to make a default supplier.
func NewTuner(o TunerOptions) (*Tuner, error) {
	defaults, err := worker.NewFixedSizeTuner(worker.FixedSizeTunerOptions{})
	if err != nil {
		return nil, fmt.Errorf("weft/temporal: Temporal's default suppliers: %w", err)
	}
	t := &Tuner{}
	for typ, ws := range [numSlotTypes]slots.Supplier{
		Workflow:        o.Workflow,
		Activity:        o.Activity,
		LocalActivity:   o.LocalActivity,
		Nexus:           o.Nexus,
		SessionActivity: o.SessionActivity,
	} {
		if ws == nil {
			t.suppliers[typ] = defaultSupplier(defaults, SlotType(typ))
			continue
		}
		t.weft[typ] = NewSupplier(SlotType(typ), ws, o.Options...)
		t.suppliers[typ] = t.weft[typ]
	}
	return t, nil
}

func defaultSupplier(d worker.WorkerTuner, t SlotType) worker.SlotSupplier {
	switch t {
	case Workflow:
		return d.GetWorkflowTaskSlotSupplier()
	case Activity:
		return d.GetActivityTaskSlotSupplier()
	case LocalActivity:
		return d.GetLocalActivitySlotSupplier()
	case Nexus:
		return d.GetNexusSlotSupplier()
	}
	return d.GetSessionActivitySlotSupplier()
}

// Supplier returns the Supplier t made for slot type typ, or nil if typ
// was left to Temporal's default.
func (t *Tuner) Supplier(typ SlotType) *Supplier {
	t.mustBeMade()
	if !typ.valid() {
		return nil
	}
	return t.weft[typ]
}

// GetWorkflowTaskSlotSupplier implements worker.WorkerTuner.
func (t *Tuner) GetWorkflowTaskSlotSupplier() worker.SlotSupplier { return t.get(Workflow) }

// GetActivityTaskSlotSupplier implements worker.WorkerTuner.
func (t *Tuner) GetActivityTaskSlotSupplier() worker.SlotSupplier { return t.get(Activity) }

// GetLocalActivitySlotSupplier implements worker.WorkerTuner.
func (t *Tuner) GetLocalActivitySlotSupplier() worker.SlotSupplier { return t.get(LocalActivity) }

// GetNexusSlotSupplier implements worker.WorkerTuner.
func (t *Tuner) GetNexusSlotSupplier() worker.SlotSupplier { return t.get(Nexus) }

// GetSessionActivitySlotSupplier implements worker.WorkerTuner.
func (t *Tuner) GetSessionActivitySlotSupplier() worker.SlotSupplier {
	return t.get(SessionActivity)
}

func (t *Tuner) get(typ SlotType) worker.SlotSupplier {
	t.mustBeMade()
	return t.suppliers[typ]
}

func (t *Tuner) mustBeMade() {
	if t == nil || t.suppliers[Workflow] == nil {
		panic("weft/temporal: Tuner not made by NewTuner")
	}
}
