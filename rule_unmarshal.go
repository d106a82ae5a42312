package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"errors"
	"regexp"
	"strings"

	"go.opentelemetry.io/collector/confmap"
)

// Unmarshal decodes a rule, naming it in a decoding error (a misspelt key,
// a value of the wrong type), as validation errors name it: the decoder
// alone says only "'rules[0].expect.calls[0]' has invalid keys: arg". With
// it the collector says "'rules[0]' rule "weather": expect.calls[0] has
// invalid keys: arg".
func (r *RuleConfig) Unmarshal(conf *confmap.Conf) error {
	type fields RuleConfig // without this method
	err := conf.Unmarshal((*fields)(r))
	if err == nil {
		return nil
	}
	name, _ := conf.Get("name").(string)
	if name == "" {
		return err
	}
	// One line per problem, each naming the rule and the field; the
	// decoder's heading and quotes go, the caller's decoder adds its own.
	text := strings.TrimPrefix(err.Error(), decodingHeading)
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, `rule "`+name+`": `+quotedPath.ReplaceAllString(line, "$1"))
		}
	}
	return errors.New(strings.Join(lines, "\n"))
}

// decodingHeading is how confmap's decoder starts its errors.
const decodingHeading = "decoding failed due to the following error(s):\n\n"

// quotedPath is the field path the decoder quotes at the start of a line.
var quotedPath = regexp.MustCompile(`^'([^']*)'`)
