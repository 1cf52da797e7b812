-- broadside's Haskell driver for move-limit-10x10 (COMP1100 Battleship), protocol v1.
--
-- Compiled by broadside together with the student's Battleship.hs, with GHC's
-- -fdefer-type-errors and -fdefer-out-of-scope-variables, so a function that is missing or
-- does not type-check fails only the requests that call it. It reads one JSON request per
-- line on standard input and writes one JSON answer per line on standard output
-- (specs/protocol.md). Only GHC's boot packages are used: the JSON reader is below.
--
-- Coordinates: the protocol sends cells as [row, col]; the framework's Coordinate is (x, y)
-- with x the column and y the row, and grids are indexed grid !! y !! x.
module Main (main) where

import qualified Battleship as B
import Control.Exception (SomeException, evaluate, try, displayException)
import Data.Char (chr, isDigit, isSpace, ord)
import Data.IORef
import Data.List (intercalate, isInfixOf)
import System.IO

-- JSON ----------------------------------------------------------------------------------

data J = JNull | JBool Bool | JNum Integer | JStr String | JArr [J] | JObj [(String, J)]

parseJ :: String -> Maybe (J, String)
parseJ s = case dropWhile isSpace s of
  'n':'u':'l':'l':r -> Just (JNull, r)
  't':'r':'u':'e':r -> Just (JBool True, r)
  'f':'a':'l':'s':'e':r -> Just (JBool False, r)
  '"':r -> do (str, r') <- parseStr r; Just (JStr str, r')
  '[':r -> parseArr (dropWhile isSpace r) []
  '{':r -> parseObj (dropWhile isSpace r) []
  r@(c:_) | c == '-' || isDigit c -> parseNum r
  _ -> Nothing
  where
    parseArr (']':r) acc = Just (JArr (reverse acc), r)
    parseArr r acc = do
      (v, r1) <- parseJ r
      case dropWhile isSpace r1 of
        ',':r2 -> parseArr r2 (v:acc)
        ']':r2 -> Just (JArr (reverse (v:acc)), r2)
        _ -> Nothing
    parseObj ('}':r) acc = Just (JObj (reverse acc), r)
    parseObj r acc = do
      ('"':r1) <- Just (dropWhile isSpace r)
      (k, r2) <- parseStr r1
      (':':r3) <- Just (dropWhile isSpace r2)
      (v, r4) <- parseJ r3
      case dropWhile isSpace r4 of
        ',':r5 -> parseObj r5 ((k, v):acc)
        '}':r5 -> Just (JObj (reverse ((k, v):acc)), r5)
        _ -> Nothing
    parseNum r =
      let (sign, r1) = case r of ('-':t) -> (-1, t); _ -> (1, r)
          (ds, r2) = span isDigit r1
          -- A fraction or exponent is read and dropped: broadside sends whole numbers.
          r3 = dropWhile (\c -> isDigit c || c `elem` ".eE+-") r2
      in if null ds then Nothing else Just (JNum (sign * read ds), r3)

parseStr :: String -> Maybe (String, String)
parseStr = go []
  where
    go acc ('"':r) = Just (reverse acc, r)
    go acc ('\\':c:r) = case c of
      'n' -> go ('\n':acc) r
      't' -> go ('\t':acc) r
      'r' -> go ('\r':acc) r
      'b' -> go ('\b':acc) r
      'f' -> go ('\f':acc) r
      'u' -> let (h, r') = splitAt 4 r in go (chr (read ("0x" ++ h)):acc) r'
      _ -> go (c:acc) r
    go acc (c:r) = go (c:acc) r
    go _ [] = Nothing

render :: J -> String
render JNull = "null"
render (JBool b) = if b then "true" else "false"
render (JNum n) = show n
render (JStr s) = renderStr s
render (JArr vs) = "[" ++ intercalate "," (map render vs) ++ "]"
render (JObj kvs) = "{" ++ intercalate "," [renderStr k ++ ":" ++ render v | (k, v) <- kvs] ++ "}"

renderStr :: String -> String
renderStr s = "\"" ++ concatMap esc s ++ "\""
  where
    esc '"' = "\\\""
    esc '\\' = "\\\\"
    esc '\n' = "\\n"
    esc '\r' = "\\r"
    esc '\t' = "\\t"
    esc c | ord c < 0x20 = "\\u" ++ pad (showHex' (ord c))
          | otherwise = [c]
    pad h = replicate (4 - length h) '0' ++ h
    showHex' n = let (q, r) = n `divMod` 16
                     d = "0123456789abcdef" !! r
                 in if q == 0 then [d] else showHex' q ++ [d]

field :: String -> J -> Maybe J
field k (JObj kvs) = lookup k kvs
field _ _ = Nothing

str :: String -> J -> Maybe String
str k o = case field k o of Just (JStr s) -> Just s; _ -> Nothing

int :: String -> J -> Maybe Integer
int k o = case field k o of Just (JNum n) -> Just n; _ -> Nothing

cellOf :: J -> Maybe (Integer, Integer)
cellOf (JArr [JNum r, JNum c]) = Just (r, c)
cellOf _ = Nothing

-- The game ------------------------------------------------------------------------------

data Game = Game
  { rows :: Integer
  , cols :: Integer
  , fleet :: [(String, Integer)]          -- each fleet kind with its length
  , gen :: B.GenShips                     -- Part A: ships placed so far
  , play :: Maybe B.State                 -- Part B: the state, once play has begun
  }

data Failure = Failure String String      -- kind, message

kindOf :: String -> Maybe B.ShipType
kindOf k = lookup k [("Carrier", B.Carrier), ("Battleship", B.Battleship),
                     ("Submarine", B.Submarine), ("Cruiser", B.Cruiser),
                     ("Destroyer", B.Destroyer)]

kindName :: B.ShipType -> String
kindName t = case t of
  B.Carrier -> "Carrier"
  B.Battleship -> "Battleship"
  B.Submarine -> "Submarine"
  B.Cruiser -> "Cruiser"
  B.Destroyer -> "Destroyer"

dirOf :: String -> Maybe B.Direction
dirOf d = lookup d [("up", B.Up), ("down", B.Down), ("left", B.Left), ("right", B.Right)]

-- | Runs student code, forcing its result through `force`; an exception becomes the
-- student's failure, naming the function (a deferred scope error is a missing function).
student :: String -> (a -> Int) -> a -> IO (Either Failure a)
student fn force x = do
  r <- try (evaluate (force x `seq` x))
  return $ case r of
    Right v -> Right v
    Left e -> Left (classify fn (displayException (e :: SomeException)))

-- | Stands in for a student function that Battleship.hs does not define at all: broadside
-- rewrites the driver's reference to it into this when GHC reports it out of scope.
missingFunction :: String -> a
missingFunction n = error ("broadside-missing: " ++ n)

classify :: String -> String -> Failure
classify fn msg
  | "broadside-missing: " `isInfixOf` msg =
      let n = takeWhile (not . isSpace) (drop (length "broadside-missing: ") (snd (breakOn "broadside-missing: " msg)))
      in Failure "missing" ("`" ++ n ++ "` is not defined in Battleship.hs")
  | ("not in scope: " ++ lower fn) `isInfixOf` lower msg || ("not in scope: b." ++ lower fn) `isInfixOf` lower msg =
      Failure "missing" ("`" ++ fn ++ "` is not defined in Battleship.hs")
  | "prelude.undefined" `isInfixOf` lower msg =
      Failure "exception" ("`" ++ fn ++ "` is undefined (it reached `undefined`)")
  | otherwise = Failure "exception" ("`" ++ fn ++ "` failed: " ++ trimMsg msg)
  where
    lower = map toLowerAscii
    toLowerAscii c = if c >= 'A' && c <= 'Z' then chr (ord c + 32) else c
    trimMsg = intercalate "\n" . take 12 . lines

breakOn :: String -> String -> (String, String)
breakOn pat = go []
  where
    go acc rest@(c:cs)
      | take (length pat) rest == pat = (reverse acc, rest)
      | otherwise = go (c:acc) cs
    go acc [] = (reverse acc, [])

forceState :: B.State -> Int
forceState (B.State b s c m) = length (show b) + length (show s) + length (show c) + length (show m)

forceGen :: B.GenShips -> Int
forceGen (B.GenShips g e f) = length (show g) + length (show e) + length (show f)

emptyShips :: Integer -> Integer -> [[Bool]]
emptyShips r c = replicate (fromIntegral r) (replicate (fromIntegral c) False)

-- | The state play starts from: the placed ships, an unchecked board, Playing, 0 moves.
started :: Game -> B.State
started g = case play g of
  Just s -> s
  Nothing -> B.State (replicate (fromIntegral (rows g)) (replicate (fromIntegral (cols g)) B.Unchecked))
                     (B.gsShips (gen g)) B.Playing 0

condName :: B.Condition -> String
condName c = case c of B.Won -> "Won"; B.Lost -> "Lost"; B.Playing -> "Playing"

checked :: B.Cell -> Bool
checked c = case c of B.Unchecked -> False; _ -> True

cellName :: B.Cell -> String
cellName c = case c of B.Unchecked -> "Unchecked"; B.Hit -> "Hit"; B.Miss -> "Miss"

at :: [[a]] -> Integer -> Integer -> Maybe a
at grid r c
  | r < 0 || c < 0 = Nothing
  | otherwise = case drop (fromIntegral r) grid of
      (row:_) -> case drop (fromIntegral c) row of (v:_) -> Just v; [] -> Nothing
      [] -> Nothing

-- Requests ------------------------------------------------------------------------------

type Answer = Either Failure [(String, J)]

handle :: IORef (Maybe Game) -> J -> IO Answer
handle ref req = case str "op" req of
  Just "hello" -> return $ case str "assignment" req of
    Just a | a /= "move-limit-10x10" ->
      Left (Failure "unsupported" ("the Haskell driver grades move-limit-10x10 only, not " ++ a))
    _ -> Right [("protocol", JNum 1), ("driver", JStr "broadside-haskell/1"), ("given", JBool True)]
  Just "new_game" -> newGame ref req
  Just "fire" -> withGame ref (fire req . takeGiven req)
  Just "place" -> withGame ref (place req)
  Just "observe" -> withGame ref (observe req)
  Just "query" -> withGame ref (query req)
  Just "probe" -> withGame ref (probe req)
  Just op -> return (Left (Failure "unsupported" ("move-limit-10x10 has no `" ++ op ++ "`")))
  Nothing -> return (Left (Failure "protocol" "a request without `op`"))

withGame :: IORef (Maybe Game) -> (Game -> IO (Either Failure ([(String, J)], Game))) -> IO Answer
withGame ref f = do
  mg <- readIORef ref
  case mg of
    Nothing -> return (Left (Failure "protocol" "no game: `new_game` first"))
    Just g -> do
      r <- f g
      case r of
        Left e -> return (Left e)
        Right (fields, g') -> writeIORef ref (Just g') >> return (Right fields)

newGame :: IORef (Maybe Game) -> J -> IO Answer
newGame ref req = case (field "rules" req, field "setup" req) of
  (Just rules, Just setup) -> do
    let r = maybe 10 id (int "rows" rules)
        c = maybe 10 id (int "cols" rules)
        fl = case field "fleet" rules of
          Just (JArr items) -> [(k, l) | it <- items, Just k <- [str "kind" it], Just l <- [int "length" it]]
          _ -> []
        placed = case field "ships" setup of
          Just (JArr items) -> [(k, cs) | it <- items, Just k <- [str "name" it >>= kindFrom fl],
                                Just (JArr cj) <- [field "cells" it], let cs = [x | Just x <- map cellOf cj]]
          _ -> []
        grid = [[any (\(_, cs) -> (y, x) `elem` cs) placed | x <- [0 .. c - 1]] | y <- [0 .. r - 1]]
        kinds = [t | (k, _) <- placed, Just t <- [kindOf k]]
        g = Game r c fl (B.GenShips grid kinds (length kinds == length fl)) Nothing
    writeIORef ref (Just g)
    return (Right [])
  _ -> return (Left (Failure "protocol" "new_game needs `rules` and `setup`"))
  where
    -- A ship's name is its kind here (one of each type).
    kindFrom fl n = if any ((== n) . fst) fl then Just n else Nothing

fire :: J -> Game -> IO (Either Failure ([(String, J)], Game))
fire req g = case field "at" req >>= cellOf of
  Nothing -> return (Left (Failure "protocol" "fire needs `at`"))
  Just (r, c) -> do
    let old = started g
    res <- student "transitionState" forceState (B.transitionState old (c, r))
    return $ case res of
      Left e -> Left e
      Right new -> Right ([("outcome", JStr (outcome old new r c))], g { play = Just new })
  where
    inBounds r c = r >= 0 && c >= 0 && r < rows g && c < cols g
    outcome old@(B.State b0 _ c0 m0) new@(B.State b1 _ c1 m1) r c =
      let over = condName c0 /= "Playing" || condName c1 == "Lost"
          unchanged = show old == show new
      in if not (inBounds r c)
           then (if over then "game-over" else "invalid")
           else case (at b0 r c, at b1 r c) of
             (Just B.Unchecked, Just B.Hit) -> "hit"
             (Just B.Unchecked, Just B.Miss) -> "miss"
             (Just before, _) | checked before ->
               if over && unchanged then "game-over" else "repeated"
             _ -> if over then "game-over" else if m1 /= m0 || show b0 /= show b1 then "repeated" else "invalid"

place :: J -> Game -> IO (Either Failure ([(String, J)], Game))
place req g = case (field "at" req >>= cellOf, str "dir" req >>= dirOf, str "kind" req >>= kindOf) of
  (Just (r, c), Just d, Just t) -> do
    let before = gen g
    res <- student "placeShip" forceGen (B.placeShip before (c, r) d t)
    return $ case res of
      Left e -> Left e
      Right after ->
        let added = length (B.existingShips after) > length (B.existingShips before)
            grew = show (B.gsShips after) /= show (B.gsShips before)
            complete = length (B.existingShips after) >= length (fleet g)
        in if added /= grew
             then Left (Failure "type" (if added
                       then "placeShip added " ++ kindName t ++ " to existingShips but put no ship on gsShips"
                       else "placeShip put ship cells on gsShips but did not add " ++ kindName t ++ " to existingShips"))
             else if added && complete && not (B.finished after)
               then Left (Failure "type" "placeShip placed the last ship of the fleet but left `finished` False")
               else if not added && B.finished after && not complete
                 then Left (Failure "type" "placeShip set `finished` with ships still to place")
                 else Right ([("outcome", JStr (if added then "ok" else "rejected"))], g { gen = after })
  _ -> return (Left (Failure "protocol" "place needs `at`, `dir` and a known `kind`"))

-- | The reference's State handed over in a request's `given` (the framework's State:
-- the board each shot has marked, the ships grid, the condition, the move counter), in
-- place of the game's own from now on; the game unchanged without one.
takeGiven :: J -> Game -> Game
takeGiven req g = maybe g (\st -> g { play = Just st }) (field "given" req >>= givenState g)

givenState :: Game -> J -> Maybe B.State
givenState g given = do
  JArr ships <- field "ships" given
  JArr shots <- field "shots" given
  let cellsOf s = case field "cells" s of Just (JArr cs) -> [x | Just x <- map cellOf cs]; _ -> []
      shipCells = concatMap cellOf' ships
      cellOf' s = cellsOf s
      shot = [x | Just x <- map cellOf shots]
      grid = [[(y, x) `elem` shipCells | x <- [0 .. cols g - 1]] | y <- [0 .. rows g - 1]]
      mark y x
        | (y, x) `notElem` shot = B.Unchecked
        | (y, x) `elem` shipCells = B.Hit
        | otherwise = B.Miss
      board = [[mark y x | x <- [0 .. cols g - 1]] | y <- [0 .. rows g - 1]]
      cond = case str "end" given of
        Just "won" -> B.Won
        Just "lost" -> B.Lost
        _ -> B.Playing
      moves = maybe 0 id (int "moves" given)
  return (B.State board grid cond moves)

observe :: J -> Game -> IO (Either Failure ([(String, J)], Game))
observe req g = do
  let st = started g
      keys = case field "keys" req of Just (JArr ks) -> [k | JStr k <- ks]; _ -> []
      onGiven = case field "given_keys" req of Just (JArr ks) -> [k | JStr k <- ks]; _ -> []
      handed = field "given" req >>= givenState g
      stateFor k = case handed of
        Just hs | k `elem` onGiven -> hs
        _ -> st
  forced <- student "transitionState" forceState st
  case forced of
    Left e -> return (Left e)
    Right _ -> do
      vals <- mapM (\k -> let B.State b' _ c' m' = stateFor k in value b' c' m' k) keys
      return $ case sequence vals of
        Left e -> Left e
        Right kvs -> Right ([("state", JObj kvs)], g)
  where
    value _ c _ "won" = return (Right ("won", JBool (condName c == "Won")))
    value _ c _ "lost" = return (Right ("lost", JBool (condName c == "Lost")))
    value _ _ m "moves" = return (Right ("moves", JNum m))
    value b _ _ "targeted" = return (Right ("targeted", JArr
      [JArr [JNum y, JNum x] | (y, row) <- zip [0 ..] b, (x, cell) <- zip [0 ..] row, checked cell]))
    value b _ _ "board" = do
      shown <- student "showBoard" length (B.showBoard b)
      return $ case shown of
        Left e -> Left e
        Right s -> Right ("board", JArr (map JStr (boardRows s)))
    value _ _ _ k = return (Left (Failure "unsupported" ("move-limit-10x10 does not report `" ++ k ++ "`")))

-- | The cell glyphs of each row of showBoard's picture: inside the framework's frame
-- ("+---+" lines, "| a b c |" rows) every other character; any other shape as printed.
boardRows :: String -> [String]
boardRows s =
  let ls = lines s
      framed l = take 2 l == "| " && drop (length l - 2) l == " |"
      inner l = everyOther (take (length l - 4) (drop 2 l))
      everyOther (x:_:rest) = x : everyOther rest
      everyOther xs = xs
      body = filter (\l -> not (take 1 l == "+")) ls
  in if not (null body) && all framed body then map (trimEnd . inner) body else ls
  where trimEnd = reverse . dropWhile (== ' ') . reverse

query :: J -> Game -> IO (Either Failure ([(String, J)], Game))
query req g = case (str "function" req, field "at" req >>= cellOf) of
  (Just "coordInBound", Just (r, c)) -> do
    res <- student "coordInBound" (\b -> if b then 1 else 0) (B.coordInBound (c, r))
    return (fmap (\v -> ([("outcome", JStr "ok"), ("value", JBool v)], g)) res)
  (Just f, _) -> return (Left (Failure "unsupported" ("move-limit-10x10 has no query function `" ++ f ++ "`")))
  _ -> return (Left (Failure "protocol" "query needs `function` and `at`"))

probe :: J -> Game -> IO (Either Failure ([(String, J)], Game))
probe req g = case str "probe" req of
  Just "ship-lengths" -> do
    results <- mapM one (fleet g)
    return $ case sequence results of
      Left e -> Left e
      Right problems -> Right (verdict (concat problems), g)
  Just p -> return (Left (Failure "unsupported" ("move-limit-10x10 has no probe `" ++ p ++ "`")))
  Nothing -> return (Left (Failure "protocol" "probe needs `probe`"))
  where
    one (k, len) = case kindOf k of
      Nothing -> return (Right [])
      Just t -> do
        res <- student "shipLength" fromIntegral (B.shipLength t)
        return $ fmap (\n -> ["shipLength " ++ k ++ " is " ++ show n ++ ", not " ++ show len | n /= len]) res
    verdict [] = [("outcome", JStr "ok")]
    verdict ps = [("outcome", JStr "rejected"), ("reason", JStr (intercalate "; " ps))]

-- The loop ------------------------------------------------------------------------------

answer :: J -> Answer -> J
answer ident r = case r of
  Right fields -> JObj ([("id", ident), ("ok", JBool True)] ++ fields ++ [("output", JStr "")])
  Left (Failure kind msg) -> JObj [("id", ident), ("ok", JBool False),
                                   ("error", JObj [("kind", JStr kind), ("message", JStr msg)]),
                                   ("output", JStr "")]

serve :: IORef (Maybe Game) -> J -> IO J
serve ref req = do
  let ident = maybe JNull id (field "id" req)
  case (str "op" req, field "requests" req) of
    (Just "batch", Just (JArr reqs)) -> do
      answers <- batch reqs
      return (JObj [("id", ident), ("ok", JBool True), ("responses", JArr answers)])
    _ -> answer ident <$> handle ref req
  where
    batch [] = return []
    batch (r:rest) = do
      a <- answer (maybe JNull id (field "id" r)) <$> handle ref r
      case field "ok" a of
        Just (JBool False) -> return [a]
        _ -> (a :) <$> batch rest

main :: IO ()
main = do
  hSetEncoding stdin utf8
  hSetEncoding stdout utf8
  hSetBuffering stdout LineBuffering
  ref <- newIORef Nothing
  let loop = do
        eof <- isEOF
        if eof then return () else do
          line <- getLine
          case parseJ line of
            Just (req, _) -> serve ref req >>= putStrLn . render
            Nothing -> putStrLn (render (answer JNull (Left (Failure "protocol" "a line that is not JSON"))))
          loop
  loop
