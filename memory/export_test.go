package memory

// The statements of a turn, for the plan tests of package memory_test.
var (
	LastMessagesSQL      = lastMessagesQuery("$1", "$2")
	TurnUserRowSQL       = turnUserRow("$3") // its last parameter: the topic, 0 for none
	TurnHistorySQL       = turnHistorySQL
	TurnAnswerSQL        = turnAnswerSQL
	ClaimSQL             = claimSQL
	ClaimFreeSQL         = claimFreeSQL
	VoiceRepliesSQL      = `SELECT ` + voiceRepliesSQL
	LaterInAlbumSQL      = laterInAlbumSQL
	TurnRecallVectorsSQL = turnRecallSQL
	TurnRankSQL          = turnRankSQL[0]
	TurnFoundSQL         = turnFoundSQL
	SaveUpdateSQL        = saveUpdateSQL
	SaveNewUpdateSQL     = saveNewUpdateSQL
	GenericPlansSQL      = genericPlansSQL
)
