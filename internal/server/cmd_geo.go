package server

import (
	"math"
	"slices"
	"strconv"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/geo"
	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/rconv"
	"github.com/cairndb/cairn/internal/store"
)

// The geo commands keep points in a sorted set, each member's score the
// 52-bit geohash of its position (internal/geo), as Redis's geo.c does;
// a search reads only the score ranges of the nine cells around its
// shape. Behaviour follows Redis 7.2.

func geoCommands() []cmdEntry {
	one := keys{1, 1, 1}
	const geoCat = command.CatGeo
	e := []cmdEntry{
		withKeyFlags(def("geoadd", -5, write|denyoom, one, geoCat, "geo", "3.2.0", "Adds one or more members to a geospatial index. The key is created if it doesn't exist.", cmdGeoAdd), rw|upd),
		withKeyFlags(def("geodist", -4, readonly, one, geoCat, "geo", "3.2.0", "Returns the distance between two members of a geospatial index.", cmdGeoDist), ro|acc),
		withKeyFlags(def("geohash", -2, readonly, one, geoCat, "geo", "3.2.0", "Returns members from a geospatial index as geohash strings.", cmdGeoHash), ro|acc),
		withKeyFlags(def("geopos", -2, readonly, one, geoCat, "geo", "3.2.0", "Returns the longitude and latitude of members from a geospatial index.", cmdGeoPos), ro|acc),
		geoStoreEntry(def("georadius", -6, write|denyoom, one, geoCat, "geo", "3.2.0", "Queries a geospatial index for members within a distance from a coordinate, optionally stores the result.", cmdGeoRadius), 6),
		geoStoreEntry(def("georadiusbymember", -5, write|denyoom, one, geoCat, "geo", "3.2.0", "Queries a geospatial index for members within a distance from a member, optionally stores the result.", cmdGeoRadiusByMember), 5),
		withKeyFlags(def("georadius_ro", -6, readonly, one, geoCat, "geo", "3.2.10", "Returns members from a geospatial index that are within a distance from a coordinate.", cmdGeoRadiusRO), ro|acc),
		withKeyFlags(def("georadiusbymember_ro", -5, readonly, one, geoCat, "geo", "3.2.10", "Returns members from a geospatial index that are within a distance from a member.", cmdGeoRadiusByMemberRO), ro|acc),
		withKeyFlags(def("geosearch", -7, readonly, one, geoCat, "geo", "6.2.0", "Queries a geospatial index for members inside an area of a box or a circle.", cmdGeoSearch), ro|acc),
		zrangeStoreEntry(def("geosearchstore", -8, write|denyoom, keys{1, 2, 1}, geoCat, "geo", "6.2.0", "Queries a geospatial index for members inside an area of a box or a circle, optionally stores the result.", cmdGeoSearchStore)),
	}
	for i := range e {
		s := e[i].spec
		switch s.Name {
		case "geoadd":
			s.History = []command.HistoryEntry{{Since: "6.2.0", Changes: "Added the `CH`, `NX` and `XX` options."}}
		case "georadius", "georadiusbymember":
			s.History = []command.HistoryEntry{
				{Since: "6.2.0", Changes: "Added the `ANY` option for `COUNT`."},
				{Since: "7.0.0", Changes: "Added support for uppercase unit names."},
			}
		case "geosearch", "geosearchstore":
			s.History = []command.HistoryEntry{{Since: "7.0.0", Changes: "Added support for uppercase unit names."}}
		}
		switch s.Name {
		case "georadius", "georadiusbymember", "georadius_ro", "georadiusbymember_ro":
			s.DocFlags = command.DocDeprecated
			s.DeprecatedSince = "6.2.0"
			s.ReplacedBy = map[string]string{
				"georadius":            "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` argument",
				"georadiusbymember":    "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` and `FROMMEMBER` arguments",
				"georadius_ro":         "`GEOSEARCH` with the `BYRADIUS` argument",
				"georadiusbymember_ro": "`GEOSEARCH` with the `BYRADIUS` and `FROMMEMBER` arguments",
			}[s.Name]
		}
	}
	return e
}

// geoStoreEntry gives GEORADIUS and GEORADIUSBYMEMBER Redis's key specs:
// the source, then the keys after STORE and STOREDIST, searched from the
// first option (at startFrom); and Redis's georadiusGetKeys for when the
// specs do not apply.
func geoStoreEntry(e cmdEntry, startFrom int) cmdEntry {
	s := e.spec
	s.Flags |= command.MovableKeys
	s.KeySpecs = []command.KeySpec{
		{Flags: command.KeyRO | command.KeyAccess, Begin: command.IndexSearch(1), Find: command.RangeKeys(0, 1, 0)},
		{Flags: command.KeyOW | command.KeyUpdate, Begin: command.KeywordSearch("STORE", startFrom), Find: command.RangeKeys(0, 1, 0)},
		{Flags: command.KeyOW | command.KeyUpdate, Begin: command.KeywordSearch("STOREDIST", startFrom), Find: command.RangeKeys(0, 1, 0)},
	}
	s.KeysFunc = func(args [][]byte) []int {
		out := []int{1}
		store := 0
		for i := startFrom - 1; i+1 < len(args); i++ {
			if optIs(args[i], "STORE") || optIs(args[i], "STOREDIST") {
				store = i + 1
				i++
			}
		}
		if store > 0 {
			out = append(out, store)
		}
		return out
	}
	return e
}

// --- Arguments ---------------------------------------------------------------

// geoErrNotFloat is Redis's reply to a coordinate that is not a number.
const geoErrNotFloat = "ERR value is not a valid float"

// geoFloat parses a double as Redis's getDoubleFromObjectOrReply, replying
// "ERR "+msg (or Redis's default) when it is not one.
func (x *ctx) geoFloat(b []byte, msg string) (float64, bool) {
	f, ok := rconv.ParseFloat(b)
	if !ok {
		if msg == "" {
			x.errorReply(geoErrNotFloat)
		} else {
			x.errorReply("ERR " + msg)
		}
	}
	return f, ok
}

// cFloat formats f as C's "%f" does.
func cFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// geoLonLat parses a longitude and a latitude at args i and i+1, replying
// on error.
func (x *ctx) geoLonLat(i int) (lon, lat float64, ok bool) {
	if lon, ok = x.geoFloat(x.arg(i), ""); !ok {
		return 0, 0, false
	}
	if lat, ok = x.geoFloat(x.arg(i+1), ""); !ok {
		return 0, 0, false
	}
	if !geo.Valid(lon, lat) {
		x.errorReply("ERR invalid longitude,latitude pair " + cFloat(lon) + "," + cFloat(lat))
		return 0, 0, false
	}
	return lon, lat, true
}

// geoUnit parses a unit into its meters, replying on error.
func (x *ctx) geoUnit(b []byte) (float64, bool) {
	switch {
	case optIs(b, "M"):
		return 1, true
	case optIs(b, "KM"):
		return 1000, true
	case optIs(b, "FT"):
		return 0.3048, true
	case optIs(b, "MI"):
		return 1609.34, true
	}
	x.errorReply("ERR unsupported unit provided. please use M, KM, FT, MI")
	return 0, false
}

// geoRadius parses "radius unit" at i into s.
func (x *ctx) geoRadius(i int, s *geo.Shape) bool {
	r, ok := x.geoFloat(x.arg(i), "need numeric radius")
	if !ok {
		return false
	}
	if r < 0 {
		x.errorReply("ERR radius cannot be negative")
		return false
	}
	conv, ok := x.geoUnit(x.arg(i + 1))
	if !ok {
		return false
	}
	s.Box, s.Radius, s.Conversion = false, r, conv
	return true
}

// geoBox parses "width height unit" at i into s.
func (x *ctx) geoBox(i int, s *geo.Shape) bool {
	w, ok := x.geoFloat(x.arg(i), "need numeric width")
	if !ok {
		return false
	}
	h, ok := x.geoFloat(x.arg(i+1), "need numeric height")
	if !ok {
		return false
	}
	if h < 0 || w < 0 {
		x.errorReply("ERR height or width cannot be negative")
		return false
	}
	conv, ok := x.geoUnit(x.arg(i + 2))
	if !ok {
		return false
	}
	s.Box, s.Width, s.Height, s.Conversion = true, w, h, conv
	return true
}

// geoMember reads the position of member of the sorted set at key, which
// the command has looked up already.
func (x *ctx) geoMember(key, member []byte) (lon, lat float64, found bool, err error) {
	score, found, err := x.tx.ZScoreUncounted(x.db(), key, member)
	if err != nil || !found {
		return 0, 0, false, err
	}
	lon, lat = geo.Position(score)
	return lon, lat, true, nil
}

// --- GEOADD, GEODIST, GEOHASH, GEOPOS ----------------------------------------------

func cmdGeoAdd(x *ctx) {
	var a store.ZAddArgs
	ch := false
	i := 2
opts:
	for ; i < len(x.args); i++ {
		switch {
		case optIs(x.arg(i), "NX"):
			a.NX = true
		case optIs(x.arg(i), "XX"):
			a.XX = true
		case optIs(x.arg(i), "CH"):
			ch = true
		default:
			break opts
		}
	}
	n := len(x.args) - i
	if n == 0 || n%3 != 0 || (a.NX && a.XX) {
		x.syntaxError()
		return
	}
	pairs := make([]store.ZMember, 0, n/3)
	for ; i < len(x.args); i += 3 {
		lon, lat, ok := x.geoLonLat(i)
		if !ok {
			return
		}
		score, _ := geo.Score(lon, lat)
		pairs = append(pairs, store.ZMember{Member: x.arg(i + 2), Score: float64(score)})
	}
	// Redis hands the scores to ZADD: it is ZADD's reply and events.
	res, err := x.tx.ZAdd(x.db(), x.arg(1), a, pairs)
	if err != nil {
		x.storeError(err)
		return
	}
	x.notifyZAdd(res, false)
	if ch {
		x.w.Int(res.Added + res.Updated)
	} else {
		x.w.Int(res.Added)
	}
}

func cmdGeoDist(x *ctx) {
	toMeters := 1.0
	switch {
	case len(x.args) == 5:
		var ok bool
		if toMeters, ok = x.geoUnit(x.arg(4)); !ok {
			return
		}
	case len(x.args) > 5:
		x.syntaxError()
		return
	}
	x.keyMiss(x.arg(1))
	scores, found, err := x.tx.ZMScore(x.db(), x.arg(1), x.args[2:4])
	switch {
	case err != nil:
		x.storeError(err)
	case !found[0] || !found[1]:
		x.w.NullBulk()
	default:
		lon1, lat1 := geo.Position(scores[0])
		lon2, lat2 := geo.Position(scores[1])
		x.w.Bulk(geo.AppendDistance(nil, geo.Distance(lon1, lat1, lon2, lat2)/toMeters))
	}
}

// geoScores reads the scores of the members at args 2..., for GEOHASH
// and GEOPOS, replying on error.
func (x *ctx) geoScores() (scores []float64, found []bool, ok bool) {
	x.keyMiss(x.arg(1))
	scores, found, err := x.tx.ZMScore(x.db(), x.arg(1), x.args[2:])
	if err != nil {
		x.storeError(err)
		return nil, nil, false
	}
	return scores, found, true
}

func cmdGeoHash(x *ctx) {
	scores, found, ok := x.geoScores()
	if !ok {
		return
	}
	x.w.Array(len(scores))
	for i, s := range scores {
		if !found[i] {
			x.w.NullBulk()
			continue
		}
		x.w.BulkString(geo.String(s))
	}
}

func cmdGeoPos(x *ctx) {
	scores, found, ok := x.geoScores()
	if !ok {
		return
	}
	x.w.Array(len(scores))
	for i, s := range scores {
		if !found[i] {
			x.w.NullArray()
			continue
		}
		lon, lat := geo.Position(s)
		replyCoordinates(x, lon, lat)
	}
}

// --- Searches ------------------------------------------------------------------------

// geoSearchKind is which search command runs: what its arguments are.
type geoSearchKind uint8

const (
	geoByCoords    geoSearchKind = iota // GEORADIUS, GEORADIUS_RO
	geoByMember                         // GEORADIUSBYMEMBER, GEORADIUSBYMEMBER_RO
	geoSearch                           // GEOSEARCH
	geoSearchStore                      // GEOSEARCHSTORE
	geoSortNone    = 0
	geoSortAsc     = 1
	geoSortDesc    = 2
)

func cmdGeoRadius(x *ctx)           { geoSearchCommand(x, geoByCoords, true) }
func cmdGeoRadiusByMember(x *ctx)   { geoSearchCommand(x, geoByMember, true) }
func cmdGeoRadiusRO(x *ctx)         { geoSearchCommand(x, geoByCoords, false) }
func cmdGeoRadiusByMemberRO(x *ctx) { geoSearchCommand(x, geoByMember, false) }
func cmdGeoSearch(x *ctx)           { geoSearchCommand(x, geoSearch, false) }
func cmdGeoSearchStore(x *ctx)      { geoSearchCommand(x, geoSearchStore, false) }

// geoPoint is one point a search found.
type geoPoint struct {
	member   []byte
	score    float64
	lon, lat float64
	dist     float64
}

// geoQuery is a parsed search command.
type geoQuery struct {
	kind  geoSearchKind
	shape geo.Shape
	// storeKey is the destination of STORE, STOREDIST or GEOSEARCHSTORE;
	// storeDist stores distances rather than positions.
	storeKey  []byte
	storeDist bool
	withDist  bool
	withHash  bool
	withCoord bool
	sort      int
	any       bool
	// count is COUNT's argument, 0 without it.
	count int64
}

// geoSearchCommand is Redis's georadiusGeneric: every search command,
// kind saying which, canStore whether GEORADIUS's STORE options apply.
func geoSearchCommand(x *ctx, kind geoSearchKind, canStore bool) {
	src := 1
	if kind == geoSearchStore {
		src = 2
	}
	srcKey := x.arg(src)
	// Redis looks the key up (and checks its type) before the arguments.
	size, err := x.tx.ZCard(x.db(), srcKey)
	if err != nil {
		x.storeError(err)
		return
	}
	x.missedIf(size == 0, srcKey)
	q, ok := x.geoParseSearch(kind, canStore, srcKey, size > 0)
	if !ok {
		return
	}
	if size == 0 {
		if q.storeKey == nil {
			x.w.Array(0)
			return
		}
		geoStore(x, &q, nil)
		return
	}
	if q.count != 0 && q.sort == geoSortNone && !q.any {
		// COUNT returns the nearest points.
		q.sort = geoSortAsc
	}
	q.shape.MembershipOnly = !q.withDist && q.sort == geoSortNone && !(q.storeKey != nil && q.storeDist)
	limit := 0
	if q.any {
		limit = int(min(q.count, math.MaxInt32))
	}
	points, err := geoCollect(x, srcKey, &q.shape, limit)
	if err != nil {
		x.storeError(err)
		return
	}
	if len(points) == 0 && q.storeKey == nil {
		x.w.Array(0)
		return
	}
	switch q.sort {
	case geoSortAsc:
		slices.SortStableFunc(points, func(a, b geoPoint) int { return cmpDist(a.dist, b.dist) })
	case geoSortDesc:
		slices.SortStableFunc(points, func(a, b geoPoint) int { return cmpDist(b.dist, a.dist) })
	}
	if q.count != 0 && int64(len(points)) > q.count {
		points = points[:q.count]
	}
	for i := range points {
		points[i].dist /= q.shape.Conversion
	}
	if q.storeKey == nil {
		geoReply(x, points, q.withDist, q.withHash, q.withCoord)
		return
	}
	geoStore(x, &q, points)
}

// geoParseSearch parses a search command's arguments as Redis does, in
// its order, replying on error. exists says whether the source key
// exists: without it, a member to search from is not looked up (nor, for
// GEORADIUSBYMEMBER, the radius parsed).
func (x *ctx) geoParseSearch(kind geoSearchKind, canStore bool, srcKey []byte, exists bool) (geoQuery, bool) {
	q := geoQuery{kind: kind}
	base := 0
	switch kind {
	case geoByCoords:
		base = 6
		var ok bool
		if q.shape.Lon, q.shape.Lat, ok = x.geoLonLat(2); !ok || !x.geoRadius(4, &q.shape) {
			return q, false
		}
	case geoByMember:
		base = 5
		if exists && (!x.geoFrom(srcKey, x.arg(2), &q.shape) || !x.geoRadius(3, &q.shape)) {
			return q, false
		}
	case geoSearch:
		base = 2
	case geoSearchStore:
		base = 3
		q.storeKey = x.arg(1)
	}
	search := kind == geoSearch || kind == geoSearchStore
	fromMember, fromLonLat, byRadius, byBox := false, false, false, false
	for i := base; i < len(x.args); i++ {
		left := len(x.args) - i - 1 // arguments after this one
		a := x.arg(i)
		switch {
		case optIs(a, "WITHDIST"):
			q.withDist = true
		case optIs(a, "WITHHASH"):
			q.withHash = true
		case optIs(a, "WITHCOORD"):
			q.withCoord = true
		case optIs(a, "ANY"):
			q.any = true
		case optIs(a, "ASC"):
			q.sort = geoSortAsc
		case optIs(a, "DESC"):
			q.sort = geoSortDesc
		case optIs(a, "COUNT") && left >= 1:
			n, ok := rconv.ParseInt(x.arg(i + 1))
			if !ok {
				x.notInteger()
				return q, false
			}
			if n <= 0 {
				x.errorReply("ERR COUNT must be > 0")
				return q, false
			}
			q.count = n
			i++
		case (optIs(a, "STORE") || optIs(a, "STOREDIST")) && left >= 1 && canStore:
			q.storeKey = x.arg(i + 1)
			q.storeDist = optIs(a, "STOREDIST")
			i++
		case optIs(a, "STOREDIST") && kind == geoSearchStore:
			q.storeDist = true
		case optIs(a, "FROMMEMBER") && left >= 1 && search && !fromLonLat:
			fromMember = true
			i++
			if exists && !x.geoFrom(srcKey, x.arg(i), &q.shape) {
				return q, false
			}
		case optIs(a, "FROMLONLAT") && left >= 2 && search && !fromMember:
			var ok bool
			if q.shape.Lon, q.shape.Lat, ok = x.geoLonLat(i + 1); !ok {
				return q, false
			}
			fromLonLat = true
			i += 2
		case optIs(a, "BYRADIUS") && left >= 2 && search && !byBox:
			if !x.geoRadius(i+1, &q.shape) {
				return q, false
			}
			byRadius = true
			i += 2
		case optIs(a, "BYBOX") && left >= 3 && search && !byRadius:
			if !x.geoBox(i+1, &q.shape) {
				return q, false
			}
			byBox = true
			i += 3
		default:
			x.syntaxError()
			return q, false
		}
	}
	name := string(x.arg(0))
	switch {
	case q.storeKey != nil && (q.withDist || q.withHash || q.withCoord):
		if kind == geoSearchStore {
			x.errorReply("ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
		} else {
			x.errorReply("ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
		}
	case search && !fromMember && !fromLonLat:
		x.errorReply("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + name)
	case search && !byRadius && !byBox:
		x.errorReply("ERR exactly one of BYRADIUS and BYBOX can be specified for " + name)
	case q.any && q.count == 0:
		x.errorReply("ERR the ANY argument requires COUNT argument")
	default:
		return q, true
	}
	return q, false
}

// geoFrom sets the center of s to the position of member of the set at
// key, replying on error.
func (x *ctx) geoFrom(key, member []byte, s *geo.Shape) bool {
	lon, lat, found, err := x.geoMember(key, member)
	switch {
	case err != nil:
		x.storeError(err)
		return false
	case !found:
		x.errorReply("ERR could not decode requested zset member")
		return false
	}
	s.Lon, s.Lat = lon, lat
	return true
}

// geoStore replaces the destination of q with the points (their scores,
// or with STOREDIST their distances), or deletes it when there are none,
// and replies with their number.
func geoStore(x *ctx, q *geoQuery, points []geoPoint) {
	ms := make([]store.ZMember, len(points))
	for i, p := range points {
		ms[i] = store.ZMember{Member: p.member, Score: p.score}
		if q.storeDist {
			ms[i].Score = p.dist
		}
	}
	var existed bool
	if len(ms) == 0 && x.tx.Notifies(notify.Generic) {
		existed, _ = x.tx.Exists(x.db(), q.storeKey)
	}
	n, err := x.tx.ZStore(x.db(), q.storeKey, ms)
	if err != nil {
		x.storeError(err)
		return
	}
	event := "georadiusstore"
	if q.kind == geoSearch || q.kind == geoSearchStore {
		event = "geosearchstore"
	}
	switch {
	case n > 0:
		x.notify(notify.ZSet, event, q.storeKey)
	case existed:
		x.notify(notify.Generic, "del", q.storeKey)
	}
	x.w.Int(n)
}

// cmpDist orders two distances.
func cmpDist(a, b float64) int {
	switch {
	case a > b:
		return 1
	case a < b:
		return -1
	}
	return 0
}

// geoCollect finds the points of key inside shape, in Redis's order: cell
// by cell (the center, then its neighbors), each in score order. With a
// limit (COUNT ... ANY) it stops once it has that many.
func geoCollect(x *ctx, key []byte, shape *geo.Shape, limit int) ([]geoPoint, error) {
	cells := shape.Ranges()
	ranges := make([]store.ZRange, len(cells))
	for i, c := range cells {
		ranges[i] = store.ZRange{
			By:    store.ZByScore,
			Min:   store.ScoreBound{Score: float64(c.Min)},
			Max:   store.ScoreBound{Score: float64(c.Max), Exclusive: true},
			Count: -1,
		}
	}
	var points []geoPoint
	_, err := x.tx.ZWalkScores(x.db(), key, ranges, func(member []byte, score float64) bool {
		if lon, lat, dist, ok := shape.Contains(score); ok {
			points = append(points, geoPoint{member: slices.Clone(member), score: score, lon: lon, lat: lat, dist: dist})
		}
		return limit == 0 || len(points) < limit
	})
	return points, err
}

// geoReply writes a search's points: each a member alone, or with
// options an array of the member and what they ask for (distance, hash,
// coordinates, in that order).
func geoReply(x *ctx, points []geoPoint, withDist, withHash, withCoord bool) {
	extra := 0
	for _, w := range []bool{withDist, withHash, withCoord} {
		if w {
			extra++
		}
	}
	x.w.Array(len(points))
	var buf []byte
	for _, p := range points {
		if extra > 0 {
			x.w.Array(extra + 1)
		}
		x.w.Bulk(p.member)
		if withDist {
			buf = geo.AppendDistance(buf[:0], p.dist)
			x.w.Bulk(buf)
		}
		if withHash {
			x.w.Int(geo.HashInt(p.score))
		}
		if withCoord {
			replyCoordinates(x, p.lon, p.lat)
		}
	}
}

// replyCoordinates writes a position as Redis 7.2 does: two doubles in
// its "human" format (geo.AppendCoordinate), as bulk strings in RESP2.
func replyCoordinates(x *ctx, lon, lat float64) {
	x.w.Array(2)
	for _, f := range []float64{lon, lat} {
		if x.w.Protocol() == 3 {
			b := append(geo.AppendCoordinate([]byte{','}, f), '\r', '\n')
			x.w.Raw(b)
		} else {
			x.w.Bulk(geo.AppendCoordinate(nil, f))
		}
	}
}
