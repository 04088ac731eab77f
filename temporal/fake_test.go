package wefttemporal_test

import (
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
)

// The infos Temporal passes to a SlotSupplier, for calling a Supplier
// directly (tests and the benchmark).

type fakeReserve struct {
	queue  string
	issued int
}

func (f fakeReserve) TaskQueue() string                     { return f.queue }
func (f fakeReserve) WorkerBuildId() string                 { return "build-1" }
func (f fakeReserve) WorkerIdentity() string                { return "worker-1" }
func (f fakeReserve) NumIssuedSlots() int                   { return f.issued }
func (f fakeReserve) Logger() tlog.Logger                   { return quiet }
func (f fakeReserve) MetricsHandler() client.MetricsHandler { return client.MetricsNopHandler }

type fakeUsed struct{ p *worker.SlotPermit }

func (f fakeUsed) Permit() *worker.SlotPermit            { return f.p }
func (f fakeUsed) Logger() tlog.Logger                   { return quiet }
func (f fakeUsed) MetricsHandler() client.MetricsHandler { return client.MetricsNopHandler }

// fakeRelease is generic because the SDK does not export the type of
// SlotReleaseInfo.Reason's result: R is inferred from the method
// expression worker.SlotReleaseInfo.Reason (see released).
type fakeRelease[R ~int] struct {
	p      *worker.SlotPermit
	reason R
}

func (f fakeRelease[R]) Permit() *worker.SlotPermit            { return f.p }
func (f fakeRelease[R]) Reason() R                             { return f.reason }
func (f fakeRelease[R]) Logger() tlog.Logger                   { return quiet }
func (f fakeRelease[R]) MetricsHandler() client.MetricsHandler { return client.MetricsNopHandler }

// processed and unused are Temporal's SlotReleaseReasonTaskProcessed and
// SlotReleaseReasonUnused (TestReleaseReasonsMatchTheSDK checks them).
const (
	processed = 0
	unused    = 1
)

// released is the SlotReleaseInfo of a release of p for reason.
func released(p *worker.SlotPermit, reason int) worker.SlotReleaseInfo {
	return newRelease(worker.SlotReleaseInfo.Reason, p, reason)
}

func newRelease[R ~int](_ func(worker.SlotReleaseInfo) R, p *worker.SlotPermit, reason int) worker.SlotReleaseInfo {
	return any(fakeRelease[R]{p: p, reason: R(reason)}).(worker.SlotReleaseInfo)
}
