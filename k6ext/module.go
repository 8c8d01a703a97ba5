// Package k6ext is the k6 extension k6/x/rpccertify: the per-answer hot path of load/k6/scenario.ts in Go.
// Recognising the answer sampling saw costs the JavaScript path a 1 KB string built by markedText and a call
// into k6/crypto through reflection; here it is one native call that hashes the body in place.
package k6ext

import (
	"encoding/hex"
	"math"

	"github.com/grafana/sobek"
	"go.k6.io/k6/v2/js/common"
	"go.k6.io/k6/v2/js/modules"
	"go.k6.io/k6/v2/metrics"

	"rpc-certify.local/k6ext/reply"
)

// Name and Rule are core/reply.ts GO_RECOGNITION's: core/node/tools/k6.ts looks for Name in `k6 version`, and the
// scenario refuses a build whose Rule is not the one it was written for.
const (
	Name = "k6/x/rpccertify"
	Rule = "markedText-sha256-1"
)

func init() {
	modules.Register(Name, new(root))
}

type root struct{}

type instance struct {
	vu       modules.VU
	bounds   map[*subject]*bounds
	codeTags map[int]string
	discard  chan metrics.SampleContainer
	// userAgent is the User-Agent header's value (k6's option), for every request of this VU.
	userAgent []string
}

func (*root) NewModuleInstance(vu modules.VU) modules.Instance {
	if env := vu.InitEnv(); env != nil && env.Registry != nil {
		registry.CompareAndSwap(nil, env.Registry)
	}
	return &instance{vu: vu, bounds: map[*subject]*bounds{}, codeTags: map[int]string{}}
}

// Exports are native functions (func(sobek.FunctionCall) sobek.Value): sobek calls them without reflection.
func (m *instance) Exports() modules.Exports {
	rt := m.vu.Runtime()
	return modules.Exports{Named: map[string]any{
		"rule": Rule,
		// The samples carry the entries' depth strata (send.go withDepth): the scenario refuses a build without.
		"depthTags": true,
		// configure(plan JSON) once per process (send.go); configured() whether it was.
		"configure": func(call sobek.FunctionCall) sobek.Value {
			if err := configure(call.Argument(0).String()); err != nil {
				common.Throw(rt, err)
			}
			return sobek.Undefined()
		},
		"configured": func(sobek.FunctionCall) sobek.Value { return rt.ToValue(current.Load() != nil) },
		"call":       m.call,
		// latency(ms, depth) and count(what, code or null, depth): the scenario's Recorder, into the metrics configure
		// registered; depth is the entry's stratum ('' for none).
		"latency": func(call sobek.FunctionCall) sobek.Value {
			p, state, s, err := m.recording()
			if err != nil {
				common.Throw(rt, err)
			}
			m.latency(state, p, s, call.Argument(0).ToFloat(), call.Argument(1).String())
			return sobek.Undefined()
		},
		"count": func(call sobek.FunctionCall) sobek.Value {
			p, state, s, err := m.recording()
			if err == nil {
				var code *int
				if c := call.Argument(1); sobek.IsNumber(c) {
					n := int(c.ToInteger())
					code = &n
				}
				err = m.count(state, p, s, call.Argument(0).String(), code, call.Argument(2).String())
			}
			if err != nil {
				common.Throw(rt, err)
			}
			return sobek.Undefined()
		},
		// validatedShape(method, entry index): the JavaScript validated that entry's sampled answer in full and found
		// nothing; call() then validates the same answer's next visits by that verdict.
		"validatedShape": func(call sobek.FunctionCall) sobek.Value {
			p := current.Load()
			k := int(call.Argument(1).ToInteger())
			if meth := p.methodNamed(call.Argument(0).String()); meth != nil && k >= 0 && k < len(meth.entries) {
				meth.entries[k].shapeValid.Store(true)
			}
			return sobek.Undefined()
		},
		// bucketOf(ms) and target(subject, i) -> [method, entry index, validated], for the agreement test.
		"bucketOf": func(call sobek.FunctionCall) sobek.Value {
			p := current.Load()
			if p == nil {
				return sobek.Undefined()
			}
			return rt.ToValue(p.bucket(call.Argument(0).ToFloat()))
		},
		"target": func(call sobek.FunctionCall) sobek.Value {
			p := current.Load()
			s := p.subjectNamed(call.Argument(0).String())
			if s == nil {
				return sobek.Undefined()
			}
			i := uint64(call.Argument(1).ToInteger())
			meth, k, validate := p.target(s, i)
			return rt.ToValue([]any{meth.name, k, validate, k >= 0 && meth.entries[k].reply != ""})
		},
		// recognised(body, id, reply): whether body is the answer fingerprinted `reply`, with this id.
		"recognised": func(call sobek.FunctionCall) sobek.Value {
			body, id, ok := args(call)
			fingerprint, isText := call.Argument(2).Export().(string)
			return rt.ToValue(ok && isText && reply.Recognised(body, id, fingerprint))
		},
		// markedSum(body, id): sha256 hex of markedText(body, id), or undefined (for the agreement test).
		"markedSum": func(call sobek.FunctionCall) sobek.Value {
			body, id, ok := args(call)
			if !ok {
				return sobek.Undefined()
			}
			sum, marked := reply.MarkedSum(body, id)
			if !marked {
				return sobek.Undefined()
			}
			return rt.ToValue(hex.EncodeToString(sum[:]))
		},
	}}
}

// args reads (body: string, id: a whole number JavaScript prints as digits); anything else is not recognised.
func args(call sobek.FunctionCall) (string, int64, bool) {
	body, isText := call.Argument(0).Export().(string)
	id := call.Argument(1)
	if !isText || !sobek.IsNumber(id) {
		return "", 0, false
	}
	f := id.ToFloat()
	// Beyond 2^53 a number is not whole digits in String(id) and in FormatInt alike.
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return "", 0, false
	}
	return body, int64(f), true
}
