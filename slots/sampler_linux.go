package slots

import (
	"os"
	"runtime"
	"time"
)

// NewSystemSampler returns a Sampler of the running process's cgroup v2
// figures, or of the host's when the process is in no cgroup v2 with CPU
// accounting (see ResourceBased). It fails if neither can be read.
func NewSystemSampler() (Sampler, error) {
	return newFSSampler(os.DirFS("/"), time.Now, runtime.NumCPU())
}
