package result

import (
	"fmt"
	"math"
)

// Print formats v for people, in m's format with three significant
// digits: "14.2ms", "3.05M/s".
func (m Metric) Print(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	switch m.Format {
	case Rate:
		return scaled(v, []string{"", "k", "M", "G"}, 1000) + "/s"
	case Count:
		if v == math.Trunc(v) && math.Abs(v) < 1000 {
			return fmt.Sprintf("%.0f", v)
		}
		return scaled(v, []string{"", "k", "M", "G"}, 1000)
	default:
		return nanos(v)
	}
}

func nanos(ns float64) string {
	switch a := math.Abs(ns); {
	case a >= 1e9:
		return sig3(ns/1e9) + "s"
	case a >= 1e6:
		return sig3(ns/1e6) + "ms"
	case a >= 1e3:
		return sig3(ns/1e3) + "µs"
	default:
		return sig3(ns) + "ns"
	}
}

func scaled(v float64, prefixes []string, step float64) string {
	i := 0
	for math.Abs(v) >= step && i < len(prefixes)-1 {
		v /= step
		i++
	}
	return sig3(v) + prefixes[i]
}

// sig3 prints x with three significant digits and no exponent.
func sig3(x float64) string {
	switch a := math.Abs(x); {
	case a == 0:
		return "0"
	case a >= 100:
		return fmt.Sprintf("%.0f", x)
	case a >= 10:
		return fmt.Sprintf("%.1f", x)
	default:
		return fmt.Sprintf("%.2f", x)
	}
}
