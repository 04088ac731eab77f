package suite

import (
	"fmt"
	"time"

	"github.com/weftrt/weft/bench/internal/contender"
	"github.com/weftrt/weft/bench/internal/result"
	"github.com/weftrt/weft/bench/internal/runner"
)

// idle measures the CPU the whole process burns while it sleeps with a
// started, idle pool: an idle pool should cost what no pool costs.
func idle(period time.Duration) *workload {
	return &workload{
		name:  "idle",
		doc:   fmt.Sprintf("process CPU per second over %s of sleep, pool idle (sequential: no pool at all, at the same GOMAXPROCS)", period),
		iters: 1,
		metrics: []result.Metric{
			{Unit: "cpu-ns/s", Label: "CPU/s", Better: result.Lower, Format: result.Nanos},
		},
		baselineAtEveryCount: true,
		supports:             resident,
		start: func(c contender.Contender, inst contender.Instance) (func() ([]float64, error), error) {
			if c.Can(contender.Submit) && c.Role != result.Baseline {
				if _, err := submitter(c, inst); err != nil {
					return nil, err
				}
			}
			return func() ([]float64, error) {
				span := runner.Time(func() { time.Sleep(period) })
				return []float64{nanos(span.CPU) / span.Wall.Seconds()}, nil
			}, nil
		},
	}
}
