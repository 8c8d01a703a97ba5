package k6ext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
	"go.k6.io/k6/v2/metrics"
	"go.k6.io/k6/v2/output"
)

// The k6 output `rpccertify` (`--out rpccertify=<url>`): k6's samples summed per series (a metric and a tag set) as
// they come, and the cumulative totals POSTed as JSON to <url> every period and once more as k6 stops, where
// load/run/otlp.ts takes them as it takes an OpenTelemetry export. k6's own OpenTelemetry output builds an attribute
// set and an SDK record for every sample (five an iteration: the harness's one and k6's four), a few µs and ~1.5 KB
// each time; here a sample is one map update keyed by two pointers, since k6 interns its tag sets.

// TotalsOutput is the output's name in `--out`; TotalsPeriodEnv the environment variable giving its period in
// milliseconds (load/run/instances.ts sets both).
const (
	TotalsOutput    = "rpccertify"
	TotalsPeriodEnv = "RPC_CERTIFY_EXPORT_MS"
)

func init() {
	output.RegisterExtension(TotalsOutput, newTotals)
}

type seriesKey struct {
	metric *metrics.Metric
	tags   *metrics.TagSet
}

// total is one series' figures as otlp.ts's Series has them: a Counter's sum, a Gauge's last value, a Trend's count
// with its min and max, a Rate's count of non-zero samples.
type total struct {
	Metric     string            `json:"metric"`
	Attributes map[string]string `json:"attributes"`
	Value      float64           `json:"value"`
	Min        *float64          `json:"min,omitempty"`
	Max        *float64          `json:"max,omitempty"`
}

// exported is one POST: every series' totals since the output started, at timeMs.
type exported struct {
	StartMs int64    `json:"startMs"`
	TimeMs  int64    `json:"timeMs"`
	Series  []*total `json:"series"`
}

type totals struct {
	output.SampleBuffer

	url     string
	period  time.Duration
	logger  logrus.FieldLogger
	flusher *output.PeriodicFlusher
	client  *http.Client

	mu      sync.Mutex
	series  map[seriesKey]*total
	startMs int64

	stop chan struct{}
	done chan struct{}
}

func newTotals(p output.Params) (output.Output, error) {
	u, err := url.Parse(p.ConfigArgument)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("%s: --out %s=<http URL> to POST the totals to, got %q", TotalsOutput, TotalsOutput, p.ConfigArgument)
	}
	ms, err := strconv.Atoi(p.Environment[TotalsPeriodEnv])
	if err != nil || ms <= 0 {
		return nil, fmt.Errorf("%s: %s must be a positive number of milliseconds, got %q", TotalsOutput, TotalsPeriodEnv, p.Environment[TotalsPeriodEnv])
	}
	return &totals{url: u.String(), period: time.Duration(ms) * time.Millisecond, logger: p.Logger, client: &http.Client{Timeout: 10 * time.Second}, series: map[seriesKey]*total{}}, nil
}

func (o *totals) Description() string {
	return fmt.Sprintf("%s (totals to the harness every %s)", TotalsOutput, o.period)
}

func (o *totals) Start() error {
	o.startMs = time.Now().UnixMilli()
	// Samples wait in k6's buffer no longer than this before they are summed: a period's edge blurs by no more.
	f, err := output.NewPeriodicFlusher(100*time.Millisecond, o.sum)
	if err != nil {
		return err
	}
	o.flusher = f
	o.stop, o.done = make(chan struct{}), make(chan struct{})
	go o.exportEvery()
	return nil
}

// Stop sums what k6 still buffers and exports the final totals: k6 has stopped pushing samples by then.
func (o *totals) Stop() error {
	o.flusher.Stop()
	close(o.stop)
	<-o.done
	return o.export()
}

func (o *totals) exportEvery() {
	defer close(o.done)
	tick := time.NewTicker(o.period)
	defer tick.Stop()
	for {
		select {
		case <-o.stop:
			return
		case <-tick.C:
			// A lost export is made up by the next: each holds the totals since the start.
			if err := o.export(); err != nil {
				o.logger.WithError(err).Warn("rpccertify: an export of the totals failed")
			}
		}
	}
}

func (o *totals) sum() {
	containers := o.GetBufferedSamples()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range containers {
		for _, s := range c.GetSamples() {
			o.add(s)
		}
	}
}

func (o *totals) add(s metrics.Sample) {
	key := seriesKey{s.Metric, s.Tags}
	t := o.series[key]
	if t == nil {
		t = &total{Metric: s.Metric.Name, Attributes: attributes(s.Tags)}
		o.series[key] = t
	}
	switch s.Metric.Type {
	case metrics.Counter:
		t.Value += s.Value
	case metrics.Gauge:
		t.Value = s.Value
	case metrics.Trend:
		t.Value++
		if t.Min == nil {
			lo, hi := s.Value, s.Value
			t.Min, t.Max = &lo, &hi
		}
		*t.Min, *t.Max = math.Min(*t.Min, s.Value), math.Max(*t.Max, s.Value)
	case metrics.Rate:
		if s.Value != 0 {
			t.Value++
		}
	}
}

// attributes are a tag set's non-empty tags, as k6's OpenTelemetry output gives them.
func attributes(tags *metrics.TagSet) map[string]string {
	out := map[string]string{}
	if tags == nil {
		return out
	}
	for k, v := range tags.Map() {
		if k != "" && v != "" {
			out[k] = v
		}
	}
	return out
}

func (o *totals) export() error {
	o.mu.Lock()
	body := exported{StartMs: o.startMs, TimeMs: time.Now().UnixMilli(), Series: make([]*total, 0, len(o.series))}
	for _, t := range o.series {
		if !math.IsInf(t.Value, 0) && !math.IsNaN(t.Value) {
			body.Series = append(body.Series, t)
		}
	}
	text, err := json.Marshal(body)
	o.mu.Unlock()
	if err != nil {
		return err
	}
	res, err := o.client.Post(o.url, "application/json", bytes.NewReader(text))
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("the harness answered %s", res.Status)
	}
	return nil
}
