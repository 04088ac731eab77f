// Package intaketest audits an intake.Worker from its two edges, its
// supplier and its source, and checks the slot invariant that package
// intake promises. Use it to test a worker over a source of your own:
//
//	l := intaketest.NewLedger(8)
//	w, _ := intake.New(intake.Config{
//		Supplier: l.Supplier(slots.NewFixed(8)),
//		Source:   l.Source(mySource),
//		...
//	})
//	... run, Shutdown ...
//	if p := l.Problems(); len(p) > 0 { t.Fatal(p) }
package intaketest
