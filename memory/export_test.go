package memory

// The statements of a turn, for the plan tests of package memory_test.
var (
	LastMessagesSQL      = lastMessagesQuery("$1", "$2")
	TurnUserRowSQL       = bindThread(turnUserRowSQL, 3) // its last parameter: the topic, 0 for none
	TurnHistorySQL       = bindThread(turnHistorySQL, 4)
	TurnAnswerSQL        = turnAnswerSQL
	ClaimSQL             = claimSQL
	ClaimFreeSQL         = claimFreeSQL
	VoiceRepliesSQL      = `SELECT ` + voiceRepliesSQL
	LaterInAlbumSQL      = laterInAlbumSQL
	TurnRecallVectorsSQL = bindThread(turnRecallSQL, 7)
	TurnRankSQL          = turnRankSQL[0]
	TurnFoundSQL         = bindThread(turnFoundSQL, 5)
	SaveUpdateSQL        = saveUpdateSQL
	SaveNewUpdateSQL     = saveNewUpdateSQL
	GenericPlansSQL      = genericPlansSQL
)
