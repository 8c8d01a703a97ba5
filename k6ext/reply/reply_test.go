package reply

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"
)

// A vector as test/load/k6ext.test.ts writes it from core/reply.ts: marked is sha256 hex of markedText, or null.
type vector struct {
	Body   string  `json:"body"`
	ID     int64   `json:"id"`
	Marked *string `json:"marked"`
}

func TestAgreesWithTypeScript(t *testing.T) {
	path := os.Getenv("RPC_CERTIFY_REPLY_VECTORS")
	if path == "" {
		t.Skip("RPC_CERTIFY_REPLY_VECTORS names no vector file (test/load/k6ext.test.ts writes one and runs this)")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var vectors []vector
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors) == 0 {
		t.Fatal("no vectors")
	}
	for i, v := range vectors {
		sum, ok := MarkedSum(v.Body, v.ID)
		switch {
		case v.Marked == nil && ok:
			t.Errorf("vector %d (id %d, body %q): Go marks it, TypeScript does not", i, v.ID, v.Body)
		case v.Marked != nil && !ok:
			t.Errorf("vector %d (id %d, body %q): TypeScript marks it, Go does not", i, v.ID, v.Body)
		case v.Marked != nil && hex.EncodeToString(sum[:]) != *v.Marked:
			t.Errorf("vector %d (id %d, body %q): sha256 %x, TypeScript %s", i, v.ID, v.Body, sum, *v.Marked)
		}
		if v.Marked != nil && !Recognised(v.Body, v.ID, *v.Marked) {
			t.Errorf("vector %d: not recognised by its own fingerprint", i)
		}
	}
}

func TestRecognised(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":7,"result":"0x1"}`
	sum := sha256.Sum256([]byte("{\"jsonrpc\":\"2.0\",\"id\":\x00,\"result\":\"0x1\"}"))
	fp := hex.EncodeToString(sum[:])
	cases := []struct {
		body  string
		id    int64
		reply string
		want  bool
	}{
		{body, 7, fp, true},
		{`{"jsonrpc":"2.0","id":8,"result":"0x1"}`, 8, fp, true},
		{body, 8, fp, false}, // another request's answer
		{`{"jsonrpc":"2.0","id":7,"result":"0x2"}`, 7, fp, false}, // a corrupted field
		{body, 7, "", false},
		{body, 7, fp[:63], false},
	}
	for _, c := range cases {
		if got := Recognised(c.body, c.id, c.reply); got != c.want {
			t.Errorf("Recognised(%q, %d) = %v, want %v", c.body, c.id, got, c.want)
		}
	}
}
