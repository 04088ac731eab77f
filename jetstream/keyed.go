package weftjs

import (
	"context"
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
)

// HeaderKey holds a keyed task's key as its producer gave it, for people
// reading the stream (`nats stream view`). It is informational, and left
// out for a key that a header cannot carry (line breaks, control
// characters): a worker reads the key from HeaderKeyToken.
const HeaderKey = "Weft-Key"

// HeaderKeyToken holds a keyed task's key token (KeyToken), the same token
// as the last one of the subject it is published to (KeyedSubject). The
// server partitions on the subject's token and stores the task on its
// partition's subject without it (so that a partition's consumer reads a
// literal subject, which the server finds far faster than a wildcard's
// matches), and the worker takes the key from this header. PublishKeyed
// sets it. A producer writing keyed messages by hand must set it too: a
// keyed task without it, or with a token of another partition, is
// reported (Config.OnError) and runs in order with the other such tasks of
// its partition, one at a time.
const HeaderKeyToken = "Weft-Key-Token"

// unmarkedKey is the key of a keyed task whose HeaderKeyToken is missing
// or names another partition: such tasks of one partition share it, so
// they still run one at a time, in stream order.
const unmarkedKey = "\x00weft: no valid " + HeaderKeyToken

// MaxKeyLen bounds a key, in bytes: its encoding makes a subject token
// about 4/3 as long, and a subject must fit the server's control line
// (4 KiB by default) with the rest of the subject.
const MaxKeyLen = 1024

// keyEncoding turns any key into one subject token: unpadded base64url
// uses only letters, digits, '-' and '_', none of which NATS gives a
// meaning ('.', '*', '>' and white space would split or wildcard the
// subject). It is injective, so two keys never share a token.
var keyEncoding = base64.RawURLEncoding

// checkKey refuses what cannot be a key, with ErrBadKey.
func checkKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: the key is empty (publish a task without a key with Publish or Source.Publish, to the unkeyed subject)", ErrBadKey)
	case len(key) > MaxKeyLen:
		return fmt.Errorf("%w: key of %d bytes: want at most MaxKeyLen (%d) bytes", ErrBadKey, len(key), MaxKeyLen)
	}
	return nil
}

// KeyToken is the subject token that carries key: its unpadded base64url
// encoding.
func KeyToken(key string) string { return keyEncoding.EncodeToString([]byte(key)) }

// KeyedSubject is the subject a task with key is published to, under
// prefix, the stream's keyed prefix (Source.KeyedPrefix: "weft_tasks.k"
// for the default stream): prefix + "." + KeyToken(key). The stream's
// subject transform stores it on the subject of the key's partition.
func KeyedSubject(prefix, key string) string { return prefix + "." + KeyToken(key) }

// PartitionOf returns the partition, of n, that the server's
// {{partition(n,1)}} transform puts key in: the FNV-1a hash of the key's
// token modulo n, as nats-server computes it.
func PartitionOf(key string, n int) int {
	if n <= 0 {
		return 0
	}
	return partitionOfToken(KeyToken(key), n)
}

// partitionOfToken is PartitionOf for a key's token.
func partitionOfToken(tok string, n int) int {
	if n <= 0 {
		return 0
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(tok))
	return int(h.Sum32() % uint32(n))
}

// PublishKeyed publishes a task with key to the keyed subject under
// prefix (see KeyedSubject) and waits for the server to store it. A
// stream set up with Config.Partitions puts it in the key's partition,
// whose tasks one worker at a time runs, in publish order (see
// docs/jetstream.md, Keyed tasks). opts are nats.go's publish options
// (natsjs.WithMsgID, say). An empty key, or one longer than MaxKeyLen,
// is refused with ErrBadKey before anything is sent.
func PublishKeyed(ctx context.Context, js natsjs.JetStream, prefix, key string, payload []byte, opts ...natsjs.PublishOpt) (*natsjs.PubAck, error) {
	m, err := keyedMsg(prefix, key, payload)
	if err != nil {
		return nil, err
	}
	return js.PublishMsg(ctx, m, opts...)
}

// PublishKeyedAsync is PublishKeyed without waiting: the future tells
// when the server stored the task. Tasks of one key published async from
// one connection are stored in the order they were published.
func PublishKeyedAsync(js natsjs.JetStream, prefix, key string, payload []byte, opts ...natsjs.PublishOpt) (natsjs.PubAckFuture, error) {
	m, err := keyedMsg(prefix, key, payload)
	if err != nil {
		return nil, err
	}
	return js.PublishMsgAsync(m, opts...)
}

func keyedMsg(prefix, key string, payload []byte) (*nats.Msg, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	if err := checkSubject(prefix, false); err != nil {
		return nil, fmt.Errorf("%w: keyed prefix: %w", ErrConfig, err)
	}
	tok := KeyToken(key)
	m := nats.NewMsg(prefix + "." + tok)
	m.Data = payload
	m.Header.Set(HeaderKeyToken, tok)
	if headerSafe(key) {
		m.Header.Set(HeaderKey, key)
	}
	return m, nil
}

// headerSafe reports whether a header value can carry s unchanged.
func headerSafe(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) &&
		strings.TrimSpace(s) == s
}

// keyOfToken returns the key a token encodes. A token that is not a
// key's encoding (a producer's own) is its own key: its tasks are still
// kept in order, with each other.
func keyOfToken(tok string) string {
	if b, err := keyEncoding.DecodeString(tok); err == nil {
		return string(b)
	}
	return tok
}
