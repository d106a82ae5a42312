package trajectory

import (
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// Two things a tool span may record less well than the model's request
// that asked for the call, resolved from the request when the two are
// paired (witnesses.go):
//
//   - A bare value. A framework that writes a one-key argument object as its
//     only value (LangChain JS under OpenInference: input.value "ZZZZ",
//     text/plain, for {"symbol":"ZZZZ"}) leaves a scalar where the request
//     holds the object. The scalar agrees with a request whose arguments are
//     an object of one member with that value (or with a string of its
//     JSON), and the call takes the request's object.
//   - A wrapper name. A span named after the class that wraps the tool
//     (LangChain's DynamicStructuredTool, as OpenLLMetry JS records a failed
//     call) pairs with a request by id, or by equal arguments whatever the
//     request's name, and takes the request's name.

// bareValueOf reports whether got is the bare value of want: got is a
// scalar, want an object of exactly one member whose value equals got, or
// whose JSON text is got's string.
func bareValueOf(got, want jsonv.Value) bool {
	switch got.Kind() {
	case jsonv.KindObject, jsonv.KindArray, jsonv.KindUndefined:
		return false
	}
	if want.Kind() != jsonv.KindObject || want.Len() != 1 {
		return false
	}
	_, member := want.MemberAt(0)
	if jsonv.Equal(got, member) {
		return true
	}
	return got.Kind() == jsonv.KindString && member.Kind() != jsonv.KindString && got.StringValue() == member.JSON()
}

// wrapperName reports whether a call's name is a wrapper class's rather
// than its tool's.
func wrapperName(name string) bool { return extract.IsWrapperToolName(name) }

// namesAgree reports whether an executed call's name may be the request's:
// equal, or (when sameArgs or ids pair them) a wrapper's name.
func namesAgree(executed, requested string, byArguments bool) bool {
	return executed == requested || (byArguments && wrapperName(executed))
}
