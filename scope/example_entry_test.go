package scope_test

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/scope"
)

// team is a tree of any shape, the input of countPeople.
type team struct {
	people int
	teams  []*team
}

// countPeople adds up the people in t and under it, spawning a task per
// subteam. Each task spawns with the *Scope it received, not the one of
// its parent.
func countPeople(s *scope.Scope, t *team, total *atomic.Int64) {
	total.Add(int64(t.people))
	for _, sub := range t.teams {
		s.Spawn(func(s *scope.Scope) { countPeople(s, sub, total) })
	}
}

// Run is the entry from inside a task: body and the tasks it spawns may
// spawn more, and Run returns when all of them have.
func ExampleRun() {
	company := &team{1, []*team{
		{2, []*team{{4, nil}, {5, nil}}},
		{3, []*team{{6, []*team{{7, nil}}}}},
	}}
	p, _ := scheduler.New(scheduler.WithWorkers(2))
	defer p.Close()
	_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
		var total atomic.Int64
		scope.Run(w, func(s *scope.Scope) { countPeople(s, company, &total) })
		fmt.Println("people:", total.Load())
		return nil
	})
	// Output: people: 28
}

// GroupOn is Group from outside the pool: the first error cancels the
// group's context and is returned once every task has returned.
func ExampleGroupOn() {
	inputs := []string{"12", "7", "x", "30"}
	nums := make([]int, len(inputs))
	err := scope.GroupOn(context.Background(), nil, func(s *scope.Scope) error { // nil: the default pool
		for i, in := range inputs {
			s.Go(func(*scope.Scope) error {
				n, err := strconv.Atoi(in)
				nums[i] = n
				return err
			})
		}
		return nil
	})
	fmt.Println(err)
	// Output: strconv.Atoi: parsing "x": invalid syntax
}
