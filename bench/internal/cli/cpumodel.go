package cli

import (
	"bufio"
	"os"
	"strings"
)

// cpuModel returns the CPU's model name from /proc/cpuinfo, or "unknown
// CPU" where there is none (not Linux, or an architecture whose cpuinfo
// names it differently).
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(val)
		}
	}
	return "unknown CPU"
}
