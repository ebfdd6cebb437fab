package desk

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"gopkg.in/yaml.v3"

	"switchboard/internal/clientinbox"
	"switchboard/internal/clientusage"
	"switchboard/mailbox"
)

// PricesFile is the workspace's own price table, which replaces rows of
// clientusage.DefaultPrices or adds some: model name prefix → dollars per
// million tokens in, out, read from and written to the cache.
const PricesFile = "prices.yaml"

// AgentUsage is what one agent's clients spent.
type AgentUsage struct {
	Agent   string             `json:"agent"`
	Profile string             `json:"profile"`
	Tokens  clientusage.Tokens `json:"tokens"`
	// Models are the tokens by model.
	Models clientusage.Usage `json:"models"`
	// Cost is the estimate in US dollars by the price table; Unpriced are
	// the models the table does not know, left out of it.
	Cost     float64  `json:"cost_usd"`
	Unpriced []string `json:"unpriced,omitempty"`
}

// Usage is what each agent of the team spent since then (the zero time for
// all), from its clients' own transcripts, read now: nothing is kept or
// watched at rest. A cache (nil for none) keeps what was read for the next
// call, which reads only the transcripts written to since.
func (d *Desk) Usage(since time.Time, cache *clientusage.Cache) ([]AgentUsage, error) {
	if d.rules == nil {
		return nil, d.noRules()
	}
	var agents []string
	for _, agent := range d.rules.Agents() {
		if agent != mailbox.Operator { // the person, who runs no client
			agents = append(agents, agent)
		}
	}
	return d.usageOf(agents, since, cache)
}

// usageOf is Usage for the agents named.
func (d *Desk) usageOf(agents []string, since time.Time, cache *clientusage.Cache) ([]AgentUsage, error) {
	read := clientusage.ReadTranscript
	if cache != nil {
		read = cache.Read
	}
	prices, err := d.Prices()
	if err != nil {
		return nil, err
	}
	spawned, err := d.ws.Spawned()
	if err != nil {
		return nil, err
	}
	var out []AgentUsage
	for _, agent := range agents {
		u := AgentUsage{Agent: agent, Profile: agent, Models: clientusage.Usage{}}
		if sp, ok := spawned[agent]; ok && sp.Profile != "" {
			u.Profile = sp.Profile
		}
		for _, path := range clientinbox.Transcripts(d.book().TranscriptsPath(agent)) {
			if info, err := os.Stat(path); err == nil && info.ModTime().Before(since) {
				continue // written to last before the period: nothing of it is in it
			}
			got, err := read(path, since)
			if err != nil {
				return nil, fmt.Errorf("read the transcript of %s: %w", agent, err)
			}
			u.Models.Merge(got)
		}
		u.Tokens = u.Models.Total()
		u.Cost, u.Unpriced = prices.Cost(u.Models)
		slices.Sort(u.Unpriced)
		out = append(out, u)
	}
	return out, nil
}

// AddUsage puts into the snapshot what each agent spent since then, read
// through the cache; an agent whose transcripts cannot be read is shown
// without.
func (d *Desk) AddUsage(s *Snapshot, since time.Time, cache *clientusage.Cache) {
	var names []string
	for _, a := range s.Agents {
		if a.Name != mailbox.Operator {
			names = append(names, a.Name)
		}
	}
	spent, err := d.usageOf(names, since, cache)
	if err != nil {
		return
	}
	byName := make(map[string]*AgentUsage, len(spent))
	for i := range spent {
		byName[spent[i].Agent] = &spent[i]
	}
	for i := range s.Agents {
		s.Agents[i].Today = byName[s.Agents[i].Name]
	}
}

// Prices is the price table: the defaults, with the workspace's own rows
// over them.
func (d *Desk) Prices() (clientusage.Prices, error) {
	prices := make(clientusage.Prices, len(clientusage.DefaultPrices))
	for k, v := range clientusage.DefaultPrices {
		prices[k] = v
	}
	data, err := os.ReadFile(filepath.Join(d.ws.Root, PricesFile))
	if errors.Is(err, fs.ErrNotExist) {
		return prices, nil
	}
	if err != nil {
		return nil, err
	}
	var own map[string]clientusage.Price
	if err := yaml.Unmarshal(data, &own); err != nil {
		return nil, fmt.Errorf("read %s (each row: a model name prefix, then {in: 3, out: 15, cache_read: 0.3, cache_write: 3.75} in dollars per million tokens): %w", PricesFile, err)
	}
	for k, v := range own {
		prices[k] = v
	}
	return prices, nil
}
