/*
 * broadside.h: the C ABI a native submission implements, version 1.
 *
 * A native submission is a shared library (`.so`) that defines the functions below with C
 * linkage. broadside grades it with `--target native:PATH`: it never loads the library into
 * the grading process; a worker child (broadside re-executed) loads it and answers the
 * scenarios' steps by calling these functions, so a crash or an endless loop in the library is
 * a fault in the report, never a dead grader.
 *
 * Covered assignments: colab-6x6 (every function the handout asks for), solo-10x10 (shots,
 * placement legality, open sea, random layouts) and battleboats (drone and missile powers,
 * shot and turn counters, standard and expert modes).
 *
 * NOT covered: grenades-8x8 (two players, grenades, whose turn it is), move-limit-10x10 (a
 * move counter with a losing end), any `winner`, `next` or `lost` question, and rendering:
 * broadside draws the board itself from bs_ship_at, bs_was_targeted and bs_is_sunk.
 *
 * Conventions, for every function:
 * - Cells are (row, col), zero-based, row 0 at the top, col 0 at the left, whatever notation
 *   the handout uses. Off-board cells (negative, or >= the board's size) may be passed on
 *   purpose: a function must answer them (BS_INVALID, 0, ...), never read out of bounds.
 * - Strings are NUL-terminated UTF-8. A `const char *` argument is borrowed for the duration
 *   of the call only: copy what you keep. broadside overwrites and frees every argument buffer
 *   once the call returns.
 * - A `char *buf, size_t size` pair is a caller-owned output buffer of `size` bytes. Write at
 *   most `size` bytes, the terminating NUL included. If the text does not fit, write nothing
 *   and return BS_ERR_BUFFER. broadside checks the bytes past `size`: writing there is an
 *   `overrun` fault.
 * - A `bs_game *` is created by bs_new_game and owned by broadside until it passes it to
 *   bs_free_game; broadside never looks inside it. Several games may be alive at once and must
 *   not share state.
 * - Results >= 0 are answers; results < 0 are errors (BS_ERR, BS_ERR_BUFFER). An error is
 *   reported as an `exception` fault of the step that made the call.
 * - Every function except bs_abi_version, bs_new_game and bs_free_game is optional: a missing
 *   one fails, as a `missing` fault naming it, only the scenarios whose steps need it.
 *
 * How colab-6x6's create_game checks (Step 1, Step 9) read here: a new game shows exactly
 * the fleet it was given and no shots; two games made from the same `ships` share nothing (a
 * shot at one leaves the other as it was); asking every question about every cell changes
 * nothing.
 *
 * This header compiles cleanly with `cc -Wall -Wextra -pedantic -std=c11`.
 */
#ifndef BROADSIDE_H
#define BROADSIDE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this header describes; bs_abi_version must return it. */
#define BS_ABI_VERSION 1u

/* Outcome codes (>= 0): what a shot, a power or a placement did. */
#define BS_MISS 0      /* the shot hit water */
#define BS_HIT 1       /* the shot hit a ship that is still afloat */
#define BS_SUNK 2      /* the shot hit the last intact cell of a ship */
#define BS_REPEATED 3  /* the cell was already targeted; nothing changed */
#define BS_INVALID 4   /* the cell (or drone index, or missile centre) is off the board */
#define BS_PENALTY 5   /* battleboats: a repeated or off-board shot that costs a turn */
#define BS_GAME_OVER 6 /* the game had already ended; nothing changed */
#define BS_USED_UP 7   /* battleboats: the power was used past its limit */
#define BS_DRONE 8     /* battleboats: the drone scanned; the count is in *count */
#define BS_MISSILE 9   /* battleboats: the missile struck; per-cell outcomes in cells[] */
#define BS_OK 10       /* a placement was accepted */
#define BS_REJECTED 11 /* a placement was refused; nothing changed */

/* Errors (< 0). */
#define BS_ERR (-1)        /* the call failed: unknown ship name, NULL game, ... */
#define BS_ERR_BUFFER (-2) /* an output buffer was too small; nothing was written */

/* Counters for bs_counter. */
#define BS_COUNTER_SHOTS 0 /* shots recorded, as the handout counts them */
#define BS_COUNTER_TURNS 1 /* battleboats: turns taken */

/* Directions for bs_place_ship, from the given cell. */
#define BS_RIGHT 0
#define BS_DOWN 1
#define BS_LEFT 2
#define BS_UP 3

/* Axes for bs_drone. */
#define BS_ROW 0
#define BS_COL 1

/* The longest ship name broadside passes, the NUL excluded; name buffers it hands out are at
 * least BS_NAME_MAX + 1 bytes. */
#define BS_NAME_MAX 31

/* A game: opaque to broadside, defined by the submission. */
typedef struct bs_game bs_game;

/* A cell (row, col), zero-based. */
typedef struct bs_cell {
    int32_t row;
    int32_t col;
} bs_cell;

/* A ship of the fleet. All pointers are borrowed for the call that receives them. */
typedef struct bs_ship {
    const char *name;  /* unique in the fleet, e.g. "Cruiser", "cruiser-2" */
    const char *kind;  /* the fleet entry, e.g. "cruiser"; equal to name in colab-6x6 */
    const bs_cell *cells; /* `length` cells in a straight line */
    size_t length;
} bs_ship;

/* ---- Required --------------------------------------------------------------------------- */

/* Returns BS_ABI_VERSION. broadside refuses a library that returns another version. */
uint32_t bs_abi_version(void);

/* Creates a game on a `rows` x `cols` board (at most 16 x 16) with `ship_count` ships placed
 * as given (a legal fleet; colab-6x6: "the starting fleet is valid"). `mode` is "standard",
 * or "expert" in battleboats' expert mode. Copy everything you keep: `mode`, `ships` and what
 * they point to are freed when the call returns.
 * Returns a new game that the caller owns and releases with bs_free_game, or NULL on failure
 * (a `type` fault: broadside needed a game). */
bs_game *bs_new_game(const char *mode, int32_t rows, int32_t cols, const bs_ship *ships,
                     size_t ship_count);

/* Releases a game and everything it owns. `game` is not used afterwards. NULL is a no-op. */
void bs_free_game(bs_game *game);

/* ---- Shots (every assignment) ----------------------------------------------------------- */

/* Fires at (row, col) and returns its outcome: BS_MISS, BS_HIT, BS_SUNK, BS_REPEATED,
 * BS_INVALID, BS_PENALTY or BS_GAME_OVER, as the handout says. On BS_SUNK, writes the sunk
 * ship's name (as given to bs_new_game or bs_place_ship) into `ship` (`ship_size` bytes,
 * at least BS_NAME_MAX + 1); otherwise `ship` may be left untouched.
 * colab-6x6: Step 7 `fire`. solo-10x10: `check_if_hits` + `hit` (a repeated call is a miss).
 * battleboats: a cannon shot. */
int32_t bs_fire(bs_game *game, int32_t row, int32_t col, char *ship, size_t ship_size);

/* ---- Questions: they must not change the game --------------------------------------------- */

/* Writes the names of the ships still afloat into `names` (`names_size` bytes: room for
 * every ship's name, its '\n' and one NUL), each followed by '\n', then a NUL; returns how
 * many. Any order: broadside reports them in fleet order. colab-6x6: Step 6
 * `remaining_ships`. */
int32_t bs_remaining_ships(const bs_game *game, char *names, size_t names_size);

/* Returns 1 if the ship named `ship` is sunk, 0 if not, BS_ERR for an unknown name.
 * colab-6x6: Step 5 `is_sunk`. */
int32_t bs_is_sunk(const bs_game *game, const char *ship);

/* Returns 1 if no ship remains afloat, else 0. colab-6x6: Step 8 `has_won`. */
int32_t bs_has_won(const bs_game *game);

/* Returns the counter `counter` (BS_COUNTER_SHOTS or BS_COUNTER_TURNS), >= 0, or BS_ERR if
 * the game does not keep it. */
int64_t bs_counter(const bs_game *game, int32_t counter);

/* Returns 1 if (row, col) has been targeted (by a shot or a missile), else 0 (also for an
 * off-board cell). colab-6x6: Step 3 `was_targeted`. */
int32_t bs_was_targeted(const bs_game *game, int32_t row, int32_t col);

/* If a ship occupies (row, col), writes its name into `ship` (`ship_size` bytes) and returns
 * 1; otherwise returns 0 and leaves `ship` untouched. colab-6x6: Step 4 `ship_at`. */
int32_t bs_ship_at(const bs_game *game, int32_t row, int32_t col, char *ship, size_t ship_size);

/* Returns 1 if (row, col) is on the game's board, else 0. colab-6x6: Step 2
 * `is_valid_position`. */
int32_t bs_is_valid_position(const bs_game *game, int32_t row, int32_t col);

/* ---- Placement (solo-10x10) ------------------------------------------------------------- */

/* Places a ship named `name` of kind `kind`, `length` cells long, from (row, col) towards
 * `dir` (BS_RIGHT, BS_DOWN, BS_LEFT, BS_UP), if that is legal under the handout's rules (on
 * the board, no overlap, and no touching where the handout forbids it). Returns BS_OK (the
 * ship is now part of the fleet) or BS_REJECTED (nothing changed). `name` and `kind` are
 * borrowed. solo-10x10: `ok_to_place_ship_at` + `place_ship_at`. */
int32_t bs_place_ship(bs_game *game, const char *name, const char *kind, int32_t row,
                      int32_t col, int32_t dir, int32_t length);

/* Returns 1 if (row, col) neither holds nor touches (diagonals included) a ship, else 0.
 * solo-10x10: `is_open_sea`. */
int32_t bs_is_open_sea(const bs_game *game, int32_t row, int32_t col);

/* Returns 1 if a shot at (row, col) would hit a ship cell not yet hit, else 0; changes
 * nothing. solo-10x10: `check_if_hits`. */
int32_t bs_check_if_hits(const bs_game *game, int32_t row, int32_t col);

/* Draws a random legal layout of the fleet on a `rows` x `cols` board. The caller fills each
 * ship's `name`, `kind` and `length` and points `cells` at a caller-owned array of `length`
 * cells (cast away the const to fill it); the function writes every ship's cells. The same
 * `seed` may give the same layout; different seeds should give different ones.
 * Returns 0, or BS_ERR if no layout was found. solo-10x10: `randomly_place_all_ships`. */
int32_t bs_random_layout(int32_t rows, int32_t cols, bs_ship *ships, size_t ship_count,
                         uint64_t seed);

/* ---- Powers (battleboats) ----------------------------------------------------------------- */

/* Scans row or column `index` (`axis` BS_ROW or BS_COL). Returns BS_DRONE and writes the
 * number of ship cells there into *count (battleboats §5 counts hit and sunk cells too), or
 * BS_USED_UP (checked first), or BS_INVALID (index off the board; the power is not spent),
 * or BS_GAME_OVER. `count` is caller-owned. */
int32_t bs_drone(bs_game *game, int32_t axis, int32_t index, int32_t *count);

/* Fires a missile at the 3 x 3 square centred on (row, col). Returns BS_MISSILE and writes
 * the outcome of each struck cell into `cells` (9 entries, caller-owned: cells[3 * dr + dc]
 * for (row - 1 + dr, col - 1 + dc); off-board entries are ignored; a cell fired on before is
 * BS_REPEATED), or BS_USED_UP (checked first), or BS_INVALID (centre off the board; the
 * power is not spent), or BS_GAME_OVER. */
int32_t bs_missile(bs_game *game, int32_t row, int32_t col, int32_t cells[9]);

#ifdef __cplusplus
}
#endif

#endif /* BROADSIDE_H */
