// Package jsonv holds the JSON values the scorers read: an immutable Value
// tree with its parser, a flat Document index read in place, and argument paths.
package jsonv // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
