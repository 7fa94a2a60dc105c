package prefixcache

// GeneralOnly makes c serve every request through the general path, for
// tests that compare it with the single-block fast path (serveSingle).
func GeneralOnly(c *Cache) { c.general = true }
