// Package wefttemporal runs weft's slot suppliers inside Temporal workers.
package wefttemporal
