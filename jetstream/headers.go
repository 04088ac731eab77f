package weftjs

import (
	"math"
	"net/textproto"
	"strings"
	"unicode/utf8"

	"github.com/nats-io/nats.go"
)

// Headers the source sets on the copies of a message it publishes: a
// hand-back's copy (HandBack), a dead-letter record (Terminate) and a
// replayed task (Replay).
const (
	// HeaderDeliveries holds the deliveries that earlier copies of the
	// message had; Deliveries adds this copy's own.
	HeaderDeliveries = "Weft-Deliveries"
	// HeaderID holds the task's ID (its first copy's stream sequence), so
	// that a copy keeps it.
	HeaderID = "Weft-Id"

	// HeaderDeadReason is why the task was terminated (bounded, one line).
	HeaderDeadReason = "Weft-Dead-Reason"
	// HeaderDeadDeliveries is the task's delivery count when it was
	// terminated.
	HeaderDeadDeliveries = "Weft-Dead-Deliveries"
	// HeaderDeadStream and HeaderDeadSubject say where the task was:
	// Replay publishes it back to that subject on that stream.
	HeaderDeadStream  = "Weft-Dead-Stream"
	HeaderDeadSubject = "Weft-Dead-Subject"
	// HeaderDeadSequence is the terminated message's stream sequence.
	HeaderDeadSequence = "Weft-Dead-Sequence"
	// HeaderDeadTime is when it was terminated (RFC 3339, UTC).
	HeaderDeadTime = "Weft-Dead-Time"
	// HeaderDeadParts is set on a record whose task did not fit the
	// server's max_payload together with the Weft-Dead-* headers: the
	// record has no payload, and this lists the sequences, in the
	// dead-letter stream, of the part records that hold it, in order,
	// comma-separated.
	HeaderDeadParts = "Weft-Dead-Parts"
	// HeaderDeadPartOf marks a part record: the Nats-Msg-Id of the
	// record it belongs to ("weft-dead:<stream>:<sequence>").
	// HeaderDeadPart is its place among the parts, from 0. A part has no
	// other Weft-Dead-* header, and Replay takes it only through its
	// record.
	HeaderDeadPartOf = "Weft-Dead-Part-Of"
	HeaderDeadPart   = "Weft-Dead-Part"
)

// copyHeaders copies a message's headers for a copy of it, leaving out
// the server's directives (Nats-Msg-Id would have the copy dropped as a
// duplicate of the original, a Nats-Expected-* refused) and, when
// dropDead (a dead-letter record, a replayed task), the dead-letter
// headers and the headers whose keys nats.go refuses to publish: another
// client may have put one on the task (the server does not check keys),
// and with it the record could never be stored, so the task could never
// be terminated. A hand-back's copy keeps them: it fails, and the task
// is returned with a Nak instead.
func copyHeaders(h nats.Header, dropDead bool) nats.Header {
	out := nats.Header{}
	for k, v := range h {
		if strings.HasPrefix(k, "Nats-") || dropDead && (strings.HasPrefix(k, "Weft-Dead-") || !publishableKey(k)) {
			continue
		}
		out[k] = append([]string(nil), v...)
	}
	return out
}

// maxReasonLen bounds a terminate reason: it goes, with the +TERM, to
// every subscriber of the server's advisories, and into a header of the
// dead-letter record. A reason longer than the server's max_payload would
// make the terminate itself fail.
const maxReasonLen = 1024

// maxReason is the longest reason this connection can send.
func (s *Source) maxReason() int {
	return int(min(maxReasonLen, max(s.nc.MaxPayload()/4, 64)))
}

// boundReason makes reason fit in n bytes on one line: line breaks become
// spaces (a header value cannot hold them), and a longer one is cut at a
// character boundary and marked.
func boundReason(reason string, n int) string {
	reason = strings.Join(strings.Fields(reason), " ")
	if len(reason) <= n {
		return reason
	}
	const mark = "... (truncated)"
	cut := max(n-len(mark), 0)
	for cut > 0 && !utf8.RuneStart(reason[cut]) {
		cut--
	}
	return reason[:cut] + mark
}

// maxHeaderBlock is the most header bytes JetStream stores with a message
// (its store keeps their length in 16 bits): beyond it, the server
// refuses the message whatever its max_payload.
const maxHeaderBlock = math.MaxUint16

// fits reports whether a message with headers h and payload data can be
// published within limit (the server's max_payload) and stored.
func fits(h nats.Header, data []byte, limit int) bool {
	n := wireSize(h, nil)
	return n <= maxHeaderBlock && n+len(data) <= limit
}

// wireSize is what a message counts against the server's max_payload:
// its payload and its headers as nats.go encodes them.
func wireSize(h nats.Header, data []byte) int {
	n := len(data)
	if len(h) == 0 {
		return n
	}
	n += len("NATS/1.0\r\n") + len("\r\n")
	for k, vs := range h {
		for _, v := range vs {
			n += len(k) + len(textproto.TrimString(v)) + len(": \r\n")
		}
	}
	return n
}

// publishableKey reports whether nats.go publishes a header with key k:
// printable ASCII, none of the characters it forbids (see nats.go's
// isHeaderKeyValid). A message received may carry others.
func publishableKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 33 || c > 126 || strings.IndexByte(`"()/,:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}
