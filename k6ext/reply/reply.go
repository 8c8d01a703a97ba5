// Package reply recognises an answer sampling saw, with another id, without parsing it: the Go side of
// core/reply.ts's markedText and the corpus fingerprint (sha256 hex of that text). One rule: the TypeScript
// test test/load/k6ext.test.ts writes vectors from core/reply.ts that reply_test.go checks this against.
package reply

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"unsafe"
)

// bytesOf is s as bytes without a copy (a 100 KB answer would otherwise be copied twice a request): the hash only reads it.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// MarkedSum is sha256 of markedText(body, id): the body with NUL in place of the digits of its first `"id":<id>`.
// ok is false where markedText is undefined (no such token).
func MarkedSum(body string, id int64) (sum [sha256.Size]byte, ok bool) {
	var buf [32]byte
	token := strconv.AppendInt(append(buf[:0], `"id":`...), id, 10)
	at := strings.Index(body, string(token))
	if at < 0 {
		return sum, false
	}
	digitsAt := at + len(`"id":`)
	h := sha256.New()
	h.Write(bytesOf(body[:digitsAt]))
	h.Write([]byte{0})
	h.Write(bytesOf(body[at+len(token):]))
	h.Sum(sum[:0])
	return sum, true
}

// Recognised says whether body is the answer whose fingerprint (lowercase hex) is reply, with this id.
func Recognised(body string, id int64, reply string) bool {
	if len(reply) != hex.EncodedLen(sha256.Size) {
		return false
	}
	sum, ok := MarkedSum(body, id)
	if !ok {
		return false
	}
	var text [2 * sha256.Size]byte
	hex.Encode(text[:], sum[:])
	return string(text[:]) == reply
}
