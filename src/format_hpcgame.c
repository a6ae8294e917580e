/* format_hpcgame.c */
