/* format_rle3.c */
