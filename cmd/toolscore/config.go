package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadata"
)

// loadProcessorConfig reads the processor configuration from files (merged
// in order, as the collector merges several --config flags), resolving
// ${env:VAR}, ${env:VAR:-default} and ${file:path} references as the
// collector does. The file is one of:
//   - a collector configuration: the processor is processors.<id>;
//   - a file of processor sections keyed by id (tool_call_accuracy/<name>);
//   - a bare processor configuration (rules, wait, ...).
//
// id picks the processor when several are configured ("" when only one is).
// The configuration is validated with the processor's own Validate.
func loadProcessorConfig(files []string, id string) (component.ID, *toolcallaccuracyprocessor.Config, error) {
	conf, err := resolveConfFiles(files)
	if err != nil {
		return component.ID{}, nil, err
	}
	file := strings.Join(files, " + ")
	section, where, cid, err := processorSection(conf, id)
	if err != nil {
		return component.ID{}, nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := checkStrayKeys(conf, files, where); err != nil {
		return component.ID{}, nil, err
	}
	cfg := toolcallaccuracyprocessor.NewFactory().CreateDefaultConfig().(*toolcallaccuracyprocessor.Config)
	// A report lists every run's calls unless the file says otherwise.
	cfg.Output.ToolCalls = toolcallaccuracyprocessor.ToolCallsAlways
	if err := section.Unmarshal(cfg); err != nil {
		return component.ID{}, nil, locateDecodeError(files, where, err)
	}
	if err := confmap.Validate(cfg); err != nil {
		return component.ID{}, nil, fmt.Errorf("%s: %s: invalid configuration:\n  %s", file, where,
			strings.ReplaceAll(err.Error(), "\n", "\n  "))
	}
	return cid, cfg, nil
}

// bareConfig is where a bare processor configuration is read from.
const bareConfig = "processor configuration"

// processorKeys are the top-level keys of the processor's configuration.
var processorKeys = func() []string {
	var keys []string
	for f := range reflect.TypeFor[toolcallaccuracyprocessor.Config]().Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("mapstructure"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}()

// checkStrayKeys rejects processor settings written at the top level of a
// collector configuration or a file of processor sections (where is where
// the processor's configuration was read from). -config files merge key by
// key, so a bare processor file given beside a collector configuration
// would otherwise be dropped without a word.
func checkStrayKeys(conf *confmap.Conf, files []string, where string) error {
	if where == bareConfig {
		return nil
	}
	for _, key := range processorKeys {
		if !conf.IsSet(key) {
			continue
		}
		from := strings.Join(files, " + ")
		for _, f := range files {
			if one, err := resolveConfFiles([]string{f}); err == nil && one.IsSet(key) {
				from = f
				break
			}
		}
		return fmt.Errorf("%s: top-level %q would be ignored: the processor's configuration is read from %s; "+
			"write it there (-config files merge key by key, as the collector's --config flags do)", from, key, where)
	}
	return nil
}

// processorSection finds the processor's configuration in conf.
func processorSection(conf *confmap.Conf, id string) (*confmap.Conf, string, component.ID, error) {
	typ := metadata.Type.String()
	if conf.IsSet("processors") {
		procs, err := conf.Sub("processors")
		if err != nil {
			return nil, "", component.ID{}, err
		}
		key, err := pickID(procs, typ, id)
		if err != nil {
			return nil, "", component.ID{}, fmt.Errorf("processors: %w", err)
		}
		return subSection(procs, key, "processors::"+key)
	}
	if ids := matchingKeys(conf, typ); len(ids) > 0 {
		key, err := pickID(conf, typ, id)
		if err != nil {
			return nil, "", component.ID{}, err
		}
		return subSection(conf, key, key)
	}
	if id != "" {
		return nil, "", component.ID{}, fmt.Errorf("-processor %q given, but the file has no processor sections (it is read as a bare processor configuration)", id)
	}
	cid := component.NewID(metadata.Type)
	return conf, bareConfig, cid, nil
}

func subSection(conf *confmap.Conf, key, where string) (*confmap.Conf, string, component.ID, error) {
	var cid component.ID
	if err := cid.UnmarshalText([]byte(key)); err != nil {
		return nil, "", component.ID{}, fmt.Errorf("%s: %w", where, err)
	}
	// Sub of a key written with no value ("tool_call_accuracy:") is empty,
	// which is the default configuration, as in the collector.
	sub, err := conf.Sub(key)
	if err != nil {
		return nil, "", component.ID{}, fmt.Errorf("%s: %w", where, err)
	}
	return sub, where, cid, nil
}

// matchingKeys lists the top-level keys of conf that are ids of our type.
func matchingKeys(conf *confmap.Conf, typ string) []string {
	var ids []string
	for k := range conf.ToStringMap() {
		if k == typ || strings.HasPrefix(k, typ+"/") {
			ids = append(ids, k)
		}
	}
	slices.Sort(ids)
	return ids
}

// pickID chooses the processor id: the given one, or the only one.
func pickID(conf *confmap.Conf, typ, id string) (string, error) {
	ids := matchingKeys(conf, typ)
	if id != "" {
		if slices.Contains(ids, id) {
			return id, nil
		}
		return "", fmt.Errorf("no processor %q; found %s", id, describeIDs(ids))
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("no %s processor configured", typ)
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("several %s processors (%s); pick one with -processor", typ, strings.Join(ids, ", "))
}

func describeIDs(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// resolveConfFiles reads YAML files through a confmap.Resolver with env and
// file providers, so references expand and files merge as in the collector.
func resolveConfFiles(files []string) (*confmap.Conf, error) {
	uris := make([]string, len(files))
	for i, f := range files {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("read config: %w", err)
		}
		uris[i] = "file:" + f
	}
	r, err := confmap.NewResolver(confmap.ResolverSettings{
		URIs:              uris,
		ProviderFactories: []confmap.ProviderFactory{confmap.NewProviderFactory(newFileProvider), confmap.NewProviderFactory(newEnvProvider)},
		DefaultScheme:     "env",
	})
	if err != nil {
		return nil, err
	}
	conf, err := r.Resolve(context.Background())
	if located := (*locatedError)(nil); errors.As(err, &located) {
		return nil, located
	}
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", strings.Join(files, " + "), err)
	}
	return conf, r.Shutdown(context.Background())
}

// fileProvider serves file:<path> as YAML.
type fileProvider struct{}

func newFileProvider(confmap.ProviderSettings) confmap.Provider { return fileProvider{} }

func (fileProvider) Retrieve(_ context.Context, uri string, _ confmap.WatcherFunc) (*confmap.Retrieved, error) {
	path, ok := strings.CutPrefix(uri, "file:")
	if !ok {
		return nil, fmt.Errorf("%q is not a file: URI", uri)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := checkYAML(path, data); err != nil {
		return nil, err
	}
	return confmap.NewRetrievedFromYAML(data)
}

func (fileProvider) Scheme() string                 { return "file" }
func (fileProvider) Shutdown(context.Context) error { return nil }

// envProvider serves env:NAME and env:NAME:-default. The value is read as
// YAML, as the collector's env provider does.
type envProvider struct{}

func newEnvProvider(confmap.ProviderSettings) confmap.Provider { return envProvider{} }

var envNamePattern = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

func (envProvider) Retrieve(_ context.Context, uri string, _ confmap.WatcherFunc) (*confmap.Retrieved, error) {
	spec, ok := strings.CutPrefix(uri, "env:")
	if !ok {
		return nil, fmt.Errorf("%q is not an env: URI", uri)
	}
	name, def, hasDefault := strings.Cut(spec, ":-")
	if !envNamePattern.MatchString(name) {
		return nil, fmt.Errorf("environment variable %q has an invalid name", name)
	}
	val, set := os.LookupEnv(name)
	if (!set || val == "") && hasDefault {
		val = def
	}
	return confmap.NewRetrievedFromYAML([]byte(val))
}

func (envProvider) Scheme() string                 { return "env" }
func (envProvider) Shutdown(context.Context) error { return nil }

// configFlags is a repeatable -config flag.
type configFlags []string

func (c *configFlags) String() string { return strings.Join(*c, ",") }

func (c *configFlags) Set(v string) error {
	*c = append(*c, v)
	return nil
}
