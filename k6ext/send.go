package k6ext

// The whole iteration of the commonest request in Go: load/k6/scenario.ts's call() for an entry whose answer sampling
// saw. In JavaScript each step (exec.scenario, the corpus line, the request body, http.post's params and Response
// object, the recognition, the metric sample's tag object) is a call through Sobek in a runtime cold in the CPU's
// caches; here it is one native call. The JavaScript decides everything once (configure: the entries, which of them
// may take this path, the stripes, the metric names, the histogram's bucket table) and keeps every other case:
// an answer not recognised comes back to it to be judged, and so do the iterations it validates in full, unless
// sampling or the JavaScript has validated that entry's sampled answer and found nothing (shapeValid).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/grafana/sobek"
	"go.k6.io/k6/v2/js/common"
	"go.k6.io/k6/v2/lib"
	"go.k6.io/k6/v2/lib/netext/httpext"
	"go.k6.io/k6/v2/lib/types"
	"go.k6.io/k6/v2/metrics"

	"rpc-certify.local/k6ext/reply"
)

// planText is what the scenario hands over (JSON): declared in load/shared/go-plan.ts (GoPlan), whose keys
// test/load/k6ext.test.ts holds these json tags to.
type planText struct {
	URL           string   `json:"url"`
	Timeout       string   `json:"timeout"`
	ValidateShare float64  `json:"validateShare"`
	Mix           []string `json:"mix"`
	Methods       map[string]struct {
		// Entries: [params JSON text, the reply fingerprint or "" where the JavaScript judges it, 1 where a null is due,
		// 1 where sampling validated that answer in full and found nothing, the depth stratum its samples are tagged with or ""].
		Entries [][5]json.RawMessage `json:"entries"`
		Stripes [][]int              `json:"stripes"`
	} `json:"methods"`
	// Subjects: each one's metric names (load/shared/answer-classes.ts metricName), which configure registers.
	Subjects map[string]struct {
		Histogram []string          `json:"histogram"`
		Bounds    string            `json:"bounds"`
		Calls     map[string]string `json:"calls"`
		Validated string            `json:"validated"`
		Parsed    string            `json:"parsed"`
	} `json:"subjects"`
	InGo string `json:"inGo"`
	// A VU tags its counts with this many JSON-RPC codes at most, then with OtherCode (scenario.ts codeTag).
	MaxCodeTags int    `json:"maxCodeTags"`
	OtherCode   string `json:"otherCode"`
	// Lower[b]: the least latency (ms) histogram.ts's bucketOf puts in bucket b or above, b >= 1.
	Lower        []float64 `json:"lower"`
	GroupBuckets int       `json:"groupBuckets"`
}

type entry struct {
	params string
	reply  string
	null   bool
	// depth: the hit's depth stratum (corpus.ts CorpusEntry.depth), tagged `d` on its samples; "" for none.
	depth string
	// shapeValid: sampling (CorpusEntry.shaped) or the JavaScript in this run (validatedShape) validated this entry's
	// sampled answer in full and found nothing, so a validated iteration that gets those bytes again, but for the id, is
	// done here by that verdict.
	shapeValid atomic.Bool
}

type method struct {
	name    string // as the request's tag
	quoted  string // as JSON text in the body
	entries []entry
	stripes [][]int
}

type subject struct {
	method    *method // nil for the mix
	histogram []*metrics.Metric
	bounds    *metrics.Metric
	// counted: the calls per class, and "validated" and "parsed".
	counted map[string]*metrics.Metric
}

type plan struct {
	url     httpext.URL
	timeout time.Duration
	// validateStep: segments.ts validatesTurn's step, ceil(share × 2^32), worked out once (0 or NaN: no share).
	validateStep float64
	methods      map[string]*method
	mix          []*method
	subjects     map[string]*subject
	inGo         *metrics.Metric
	lower        []float64
	bucketTags   []string
	groupBuckets int
	maxCodeTags  int
	otherCode    string
}

var (
	current    atomic.Pointer[plan]
	configured sync.Mutex
	// inGo counts the iterations this process did whole in Go (call returned undefined); unreported holds those not yet
	// given to the metric iterations_in_go, which one VU does once a second (a sample each would cost what Go saves).
	inGo, unreported atomic.Int64
	reportedAt       atomic.Int64
	// registry is the test's metric registry, from the first VU's init (the scenario's metrics are registered there).
	registry atomic.Pointer[metrics.Registry]
)

// configure reads the scenario's plan once per k6 process; later calls (every VU's init) keep the first.
func configure(text string) error {
	configured.Lock()
	defer configured.Unlock()
	if current.Load() != nil {
		return nil
	}
	var t planText
	if err := json.Unmarshal([]byte(text), &t); err != nil {
		return fmt.Errorf("rpccertify: the plan is not JSON: %w", err)
	}
	reg := registry.Load()
	if reg == nil {
		return errors.New("rpccertify: configure outside a VU's init")
	}
	u, err := httpext.NewURL(t.URL, t.URL) // as http.post makes it from a string
	if err != nil {
		return err
	}
	timeout, err := types.GetDurationValue(t.Timeout)
	if err != nil {
		return fmt.Errorf("rpccertify: timeout %q: %w", t.Timeout, err)
	}
	if t.GroupBuckets < 1 || len(t.Lower) < 2 {
		return errors.New("rpccertify: the plan has no histogram layout")
	}
	p := &plan{url: u, timeout: timeout, validateStep: math.Ceil(t.ValidateShare * 4294967296), subjects: map[string]*subject{}, lower: t.Lower, groupBuckets: t.GroupBuckets, maxCodeTags: t.MaxCodeTags, otherCode: t.OtherCode}
	p.bucketTags = make([]string, len(t.Lower))
	for b := range p.bucketTags {
		p.bucketTags[b] = strconv.Itoa(b)
	}
	p.methods = map[string]*method{}
	methods := p.methods
	for name, m := range t.Methods {
		quoted, _ := json.Marshal(name)
		out := &method{name: name, quoted: string(quoted), stripes: m.Stripes, entries: make([]entry, len(m.Entries))}
		for k, e := range m.Entries {
			one := &out.entries[k]
			var null, shaped int
			if json.Unmarshal(e[0], &one.params) != nil || json.Unmarshal(e[1], &one.reply) != nil || json.Unmarshal(e[2], &null) != nil || (e[3] != nil && json.Unmarshal(e[3], &shaped) != nil) || (e[4] != nil && json.Unmarshal(e[4], &one.depth) != nil) {
				return fmt.Errorf("rpccertify: %s entry %d is not [params, reply, null, shaped, depth]", name, k)
			}
			one.null = null == 1
			one.shapeValid.Store(shaped == 1)
		}
		if len(out.stripes) == 0 {
			return fmt.Errorf("rpccertify: %s has no stripes", name)
		}
		for _, s := range out.stripes {
			for _, k := range s {
				if k < 0 || k >= len(out.entries) {
					return fmt.Errorf("rpccertify: %s stripe names entry %d of %d", name, k, len(out.entries))
				}
			}
		}
		methods[name] = out
	}
	for _, name := range t.Mix {
		m, ok := methods[name]
		if !ok {
			return fmt.Errorf("rpccertify: the mix names %s, which has no entries", name)
		}
		p.mix = append(p.mix, m)
	}
	// Registered here, as `new Counter(name)` would in the script (the same metric if the script did too).
	counter := func(name string) (*metrics.Metric, error) { return reg.NewMetric(name, metrics.Counter) }
	for name, s := range t.Subjects {
		out := &subject{method: methods[name], counted: map[string]*metrics.Metric{}}
		if out.method == nil && len(p.mix) == 0 {
			return fmt.Errorf("rpccertify: subject %s is neither a method nor a mix", name)
		}
		for _, h := range s.Histogram {
			m, err := counter(h)
			if err != nil {
				return err
			}
			out.histogram = append(out.histogram, m)
		}
		if (len(p.lower)+p.groupBuckets-1)/p.groupBuckets > len(out.histogram) {
			return fmt.Errorf("rpccertify: %s has %d histogram groups for %d buckets", name, len(out.histogram), len(p.lower))
		}
		if out.bounds, err = reg.NewMetric(s.Bounds, metrics.Trend, metrics.Time); err != nil {
			return err
		}
		named := map[string]string{"validated": s.Validated, "parsed": s.Parsed}
		for class, metric := range s.Calls {
			named[class] = metric
		}
		for what, metric := range named {
			if out.counted[what], err = counter(metric); err != nil {
				return err
			}
		}
		if out.counted["ok_null"] == nil {
			return fmt.Errorf("rpccertify: %s counts no ok_null", name)
		}
		p.subjects[name] = out
	}
	if p.inGo, err = counter(t.InGo); err != nil {
		return err
	}
	reportedAt.Store(time.Now().UnixNano())
	current.Store(p)
	return nil
}

// tally counts an iteration done in Go, and gives the count to k6 when a second has passed since it last did.
func (m *instance) tally(state *lib.State, p *plan) {
	inGo.Add(1)
	unreported.Add(1)
	now := time.Now()
	last := reportedAt.Load()
	if now.UnixNano()-last < int64(time.Second) || !reportedAt.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	tags := state.Tags.GetCurrentValues()
	metrics.PushIfNotDone(m.vu.Context(), state.Samples, metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: p.inGo, Tags: tags.Tags}, Time: now, Metadata: tags.Metadata, Value: float64(unreported.Swap(0))})
}

// validates is segments.ts's validatesTurn: the entry's lap count in 32-bit fixed point, from its place's Fibonacci hash,
// wraps at the next lap.
func (p *plan) validates(place, lap uint64) bool {
	if !(p.validateStep > 0) {
		return false
	}
	if p.validateStep >= 4294967296 {
		return true
	}
	count := uint32(place)*0x9e3779b9 + uint32(lap)*uint32(p.validateStep)
	return float64(count) >= 4294967296-p.validateStep
}

// target is the method and entry iteration i of subject s sends, and whether it is validated in full: the mix's i-th
// method, and segments.ts's entryTurn (-1: the method has no entries).
func (p *plan) target(s *subject, i uint64) (*method, int, bool) {
	m := s.method
	if m == nil {
		m = p.mix[i%uint64(len(p.mix))]
	}
	lanes := uint64(len(m.stripes))
	mine := m.stripes[i%lanes]
	if len(mine) == 0 {
		return m, -1, false // no entries: the JavaScript sends nothing either
	}
	turn := i / lanes
	if s.method == nil {
		turn += i / uint64(len(p.mix))
	}
	n := uint64(len(mine))
	return m, mine[turn%n], p.validates(turn%n, turn/n)
}

// bucket is histogram.ts's bucketOf(ms), read from its table: how many buckets' lower bounds ms reaches.
func (p *plan) bucket(ms float64) int {
	lo, hi := 0, len(p.lower) // lower[0] is never reached by the search: bucket 0 holds what is below lower[1]
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if ms >= p.lower[mid] {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// sent is a response the JavaScript judges: the fields scenario.ts reads of k6's Response.
type sent struct {
	Status   int     `js:"status"`
	Body     any     `js:"body"`
	TimedOut bool    `js:"timedOut"`
	Duration float64 `js:"duration"`
	// Error is why k6 gave no response at all (MakeRequest's error), as http.post throws it.
	Error string `js:"error"`
}

// k6's error_code for a request that ran out of time (scenario.ts K6_TIMEOUT).
const requestTimeout = 1050

// expected is http.post's default responseCallback (statuses 200-399 are expected), for http_req_failed.
func expected(status int) bool { return status >= 200 && status < 400 }

// bounds is one VU's range of latencies already given to a subject's min/max Trend (scenario.ts Metrics low/high).
type bounds struct{ low, high float64 }

// call is one iteration: undefined when it was sent, recognised and recorded here; null when the JavaScript does the
// whole iteration (validated in full, or an entry only it judges); else the response, for the JavaScript to judge.
func (m *instance) call(sobek.FunctionCall) sobek.Value {
	rt := m.vu.Runtime()
	p := current.Load()
	state := m.vu.State()
	scenario := lib.GetScenarioState(m.vu.Context())
	if p == nil || state == nil || scenario == nil || state.GetScenarioGlobalVUIter == nil {
		return sobek.Null()
	}
	s := p.subjects[scenario.Name]
	i := state.GetScenarioGlobalVUIter()
	if s == nil {
		return sobek.Null()
	}
	meth, k, validate := p.target(s, i)
	if k < 0 || meth.entries[k].reply == "" {
		return sobek.Null()
	}
	e := &meth.entries[k]
	// An iteration validated in full is the JavaScript's until it has validated this entry's sampled answer once: the
	// schemas' verdict on the same bytes (but the id, which recognition checks) is the same.
	if validate && !e.shapeValid.Load() {
		return sobek.Null()
	}
	id := int64(i) + 1 // ids start at 1, as scenario.ts's
	res, err := m.post(state, p, meth, e.params, id)
	if err != nil {
		// k6 refuses some answers outright (a 101 Switching Protocols): the endpoint's failure, judged as no answer
		// (http_error), not an iteration that throws (the harness's fault).
		return rt.ToValue(sent{Error: err.Error()})
	}
	body, isText := res.Body.(string)
	if res.Status == http.StatusOK && isText && reply.Recognised(body, id, e.reply) {
		m.record(state, p, s, res.Timings.Duration, e.null, e.depth)
		if validate {
			if err := m.count(state, p, s, "validated", nil, ""); err != nil {
				common.Throw(rt, err)
			}
		}
		m.tally(state, p)
		return sobek.Undefined()
	}
	out := sent{Status: res.Status, TimedOut: res.Status == 0 && res.ErrorCode == requestTimeout, Duration: res.Timings.Duration}
	if isText {
		out.Body = body
	}
	return rt.ToValue(out)
}

// post is http.post(url, body, { headers: JSON, tags: { name }, timeout }) as k6/http builds it from those params.
func (m *instance) post(state *lib.State, p *plan, meth *method, params string, id int64) (*httpext.Response, error) {
	u := p.url
	address := *u.GetURL()
	// The header's values are shared between requests: net/http and k6 replace a header's values, never change them.
	if m.userAgent == nil {
		m.userAgent = []string{state.Options.UserAgent.String}
	}
	req := &http.Request{Method: http.MethodPost, URL: &address, Header: http.Header{"Content-Type": jsonContentType, "User-Agent": m.userAgent}}
	body := make([]byte, 0, 64+len(meth.quoted)+len(params))
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = strconv.AppendInt(body, id, 10)
	body = append(append(append(append(append(body, `,"method":`...), meth.quoted...), `,"params":`...), params...), '}')
	tags := state.Tags.GetCurrentValues()
	tags.SetTag("name", meth.name)
	preq := &httpext.ParsedHTTPRequest{
		URL:              &u,
		Req:              req,
		Body:             bytes.NewBuffer(body),
		Timeout:          p.timeout,
		Throw:            state.Options.Throw.Bool,
		Redirects:        state.Options.MaxRedirects,
		ResponseCallback: expected,
		TagsAndMeta:      tags,
		ResponseType:     httpext.ResponseTypeText,
	}
	if state.Options.DiscardResponseBodies.Bool {
		preq.ResponseType = httpext.ResponseTypeNone
	}
	if state.CookieJar != nil {
		preq.ActiveJar = state.CookieJar
		httpext.SetRequestCookies(req, state.CookieJar, preq.Cookies)
	}
	// k6's own samples of the request (http_reqs, http_req_duration and its parts, http_req_failed: nine a request) go
	// nowhere: the harness reads none of them (its figures are its own metrics), and k6's OpenTelemetry output would
	// turn each into an attribute set and a histogram record, more CPU than the rest of this call. The VU's state is
	// pointed at the sink while the request runs (MakeRequest pushes them before it returns), not copied: a copy of
	// lib.State is ~800 bytes of garbage a request.
	kept := state.Samples
	sink := m.discarded(state)
	state.Samples = sink
	defer func() {
		state.Samples = kept
		for len(sink) > 0 {
			<-sink
		}
	}()
	return httpext.MakeRequest(m.vu.Context(), state, preq)
}

// jsonContentType is every request's Content-Type value.
var jsonContentType = []string{"application/json"}

// discarded is this VU's sink for the samples post keeps from k6, emptied by post after each request on the VU's own
// goroutine: a sink another goroutine reads wakes it at every request (a scheduler hand-off, a futex call). MakeRequest
// pushes one sample set a hop, on the caller's goroutine, before it returns: a redirect chain is at most MaxRedirects
// hops past the first, so the buffer never fills.
func (m *instance) discarded(state *lib.State) chan metrics.SampleContainer {
	if m.discard == nil {
		m.discard = make(chan metrics.SampleContainer, 16+2*max(0, int(state.Options.MaxRedirects.Int64)))
	}
	return m.discard
}

// record is what scenario.ts records for a recognised answer: its latency, and an ok_null's count.
func (m *instance) record(state *lib.State, p *plan, s *subject, ms float64, null bool, depth string) {
	m.latency(state, p, s, ms, depth)
	if null {
		m.count(state, p, s, "ok_null", nil, depth)
	}
}

// push is one sample of metric, with the VU's tags and `set` for them (nil: the VU's tags alone).
func (m *instance) push(state *lib.State, metric *metrics.Metric, with func(*metrics.TagSet) *metrics.TagSet, value float64) {
	tags := state.Tags.GetCurrentValues()
	set := tags.Tags
	if with != nil {
		set = with(set)
	}
	metrics.PushIfNotDone(m.vu.Context(), state.Samples, metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: metric, Tags: set}, Time: time.Now(), Metadata: tags.Metadata, Value: value})
}

// latency is scenario.ts's Recorder.latency: the histogram bucket's count (tagged with the entry's depth stratum, if
// any), and the latency's min and max where this VU has not yet seen it.
func (m *instance) latency(state *lib.State, p *plan, s *subject, ms float64, depth string) {
	b := p.bucket(ms)
	m.push(state, s.histogram[b/p.groupBuckets], func(t *metrics.TagSet) *metrics.TagSet { return withDepth(t.With("b", p.bucketTags[b]), depth) }, 1)
	seen, ok := m.bounds[s]
	if !ok {
		seen = &bounds{low: math.Inf(1), high: math.Inf(-1)}
		m.bounds[s] = seen
	}
	if ms < seen.low || ms > seen.high {
		m.push(state, s.bounds, nil, ms)
		seen.low, seen.high = math.Min(seen.low, ms), math.Max(seen.high, ms)
	}
}

// count is scenario.ts's Recorder.count: one more of `what`, tagged with its JSON-RPC code if it has one (a VU tags at
// most maxCodeTags codes, then otherCode).
func (m *instance) count(state *lib.State, p *plan, s *subject, what string, code *int, depth string) error {
	metric := s.counted[what]
	if metric == nil {
		return fmt.Errorf("rpccertify: %s is not counted", what)
	}
	if code == nil {
		var with func(*metrics.TagSet) *metrics.TagSet
		if depth != "" {
			with = func(t *metrics.TagSet) *metrics.TagSet { return t.With("d", depth) }
		}
		m.push(state, metric, with, 1)
		return nil
	}
	tag, ok := m.codeTags[*code]
	if !ok {
		tag = p.otherCode
		if len(m.codeTags) < p.maxCodeTags {
			tag = strconv.Itoa(*code)
			m.codeTags[*code] = tag
		}
	}
	m.push(state, metric, func(t *metrics.TagSet) *metrics.TagSet { return withDepth(t.With("code", tag), depth) }, 1)
	return nil
}

// withDepth is the tag set with the depth stratum `d`, when there is one.
func withDepth(t *metrics.TagSet, depth string) *metrics.TagSet {
	if depth == "" {
		return t
	}
	return t.With("d", depth)
}

// recording is the plan, the VU's state and its scenario's subject, for a call from the scenario's iteration.
func (m *instance) recording() (*plan, *lib.State, *subject, error) {
	p := current.Load()
	state := m.vu.State()
	scenario := lib.GetScenarioState(m.vu.Context())
	if p == nil || state == nil || scenario == nil {
		return nil, nil, nil, errors.New("rpccertify: recording outside an iteration, or before configure")
	}
	s := p.subjects[scenario.Name]
	if s == nil {
		return nil, nil, nil, fmt.Errorf("rpccertify: scenario %s is not a subject of the plan", scenario.Name)
	}
	return p, state, s, nil
}

// subjectNamed is the plan's subject, or nil (no plan, or no such subject).
func (p *plan) subjectNamed(name string) *subject {
	if p == nil {
		return nil
	}
	return p.subjects[name]
}

// methodNamed is the plan's method, or nil (no plan, or no such method).
func (p *plan) methodNamed(name string) *method {
	if p == nil {
		return nil
	}
	return p.methods[name]
}
