package msl

// Hooks for the external fixture test (package msl_test), which imports the
// compiler facade and so cannot live in package msl (import cycle).
var (
	ClangCheck     = clangCheck
	CheckGolden    = checkGolden
	CrossFamilies  = families
	CrossAllowList = allowList
	DiffSets       = diffSets
)

// AllowedDifference reports whether an intrinsic's known difference is exactly (oursOnly, theirsOnly).
func AllowedDifference(op string, oursOnly, theirsOnly []string) bool {
	k, ok := allowList[op]
	return ok && join(k.oursOnly) == join(oursOnly) && join(k.theirsOnly) == join(theirsOnly)
}
