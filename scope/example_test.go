package scope_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/scope"
)

// Tasks may borrow from the enclosing function: all of them finish before
// On returns.
func ExampleOn() {
	words := []string{"fork", "join", "steal", "sleep"}
	upper := make([]string, len(words))
	_ = scope.On(context.Background(), nil, func(s *scope.Scope) {
		for i, w := range words {
			s.Spawn(func(*scope.Scope) { upper[i] = strings.ToUpper(w) })
		}
	})
	fmt.Println(upper)
	// Output: [FORK JOIN STEAL SLEEP]
}

// Group stops the other tasks early when one fails, like errgroup.
func ExampleGroup() {
	p, _ := scheduler.New(scheduler.WithWorkers(2))
	defer p.Close()
	err := p.Run(context.Background(), func(w *scheduler.Worker) error {
		err := scope.Group(context.Background(), w, func(s *scope.Scope) error {
			s.Go(func(*scope.Scope) error { return errors.New("bad input") })
			s.Go(func(s *scope.Scope) error {
				for s.Context().Err() == nil {
					s.Worker().Yield() // a long task checks for cancellation
				}
				return s.Context().Err()
			})
			return nil
		})
		fmt.Println(err)

		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: bad input
}
