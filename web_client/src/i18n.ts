// The UI's words in Chinese and English. `t(key, ...args)` fills {0}, {1}... in order.

import type { Lang } from "./tiles";

type Entry = [zh: string, en: string];

export const STRINGS = {
  title: ["国标麻将", "Guobiao Mahjong"],
  subtitle: ["中国国家标准麻将 · 在线对局", "Mahjong Competition Rules, online"],
  language: ["English", "中文"],
  yourName: ["你的名字", "Your name"],
  enter: ["进入", "Enter"],
  changeName: ["换名字", "Change name"],
  hello: ["你好，{0}", "Hello, {0}"],
  connecting: ["连接中…", "Connecting…"],
  reconnecting: ["连接断开，正在重连…", "Connection lost, reconnecting…"],
  connected: ["已连接", "Connected"],
  offline: ["未连接", "Offline"],
  replaced: ["你在另一个窗口登录了，此窗口已断开。", "You signed in from another window; this one is disconnected."],
  reconnectNow: ["重新连接", "Reconnect"],
  // lobby
  quickMatch: ["快速匹配", "Quick match"],
  quickHelp: ["和其他玩家匹配；等不到人时由机器人补位。", "Meet other players; bots fill the table if nobody comes."],
  queued: ["正在匹配 {0}…", "Looking for a {0} table…"],
  cancel: ["取消", "Cancel"],
  publicRooms: ["公开房间", "Public rooms"],
  noRooms: ["暂无公开房间", "No public rooms right now"],
  refresh: ["刷新", "Refresh"],
  join: ["加入", "Join"],
  watch: ["观战", "Watch"],
  createRoom: ["创建房间", "Create a room"],
  roomType: ["房间类型", "Room type"],
  private: ["私人房间（凭邀请码加入）", "Private (join by invite code)"],
  hands: ["局数", "Hands"],
  handsN: ["{0} 盘", "{0} hands"],
  turnTime: ["出牌时间（秒）", "Turn time (s)"],
  claimTime: ["吃碰时间（秒）", "Claim time (s)"],
  bankTime: ["时间银行（秒）", "Time bank (s)"],
  allowBots: ["允许机器人", "Allow bots"],
  allowSpectators: ["允许观战", "Allow spectators"],
  create: ["创建", "Create"],
  joinByCode: ["用邀请码加入", "Join by invite code"],
  code: ["邀请码", "Invite code"],
  openReplay: ["查看对局回放", "Open a match replay"],
  matchId: ["对局编号", "Match id"],
  open: ["打开", "Open"],
  players: ["{0}/4 人", "{0}/4 players"],
  inLobby: ["等待中", "waiting"],
  inPlay: ["对局中", "playing"],
  // room types
  type_wufan: ["无番馆", "No-fan room"],
  type_guobiao: ["国标馆", "Guobiao room"],
  type_dazhong: ["大众馆", "Popular room"],
  typeHelp_wufan: ["和牌即可，不计番；自摸每家付 10，点炮者付 10。", "Any complete hand wins, fans not counted; 10 points."],
  typeHelp_guobiao: ["8 番起和；国标计分（8 + 番数）。", "8 fans to win; MCR scoring (8 + fans)."],
  typeHelp_dazhong: ["不设起和番，加计“听”与“258将”。", "No minimum; adds 'Ready' and '2-5-8 pair' fans."],
  // room lobby
  room: ["房间", "Room"],
  inviteLink: ["邀请链接", "Invite link"],
  copy: ["复制", "Copy"],
  copied: ["已复制", "Copied"],
  seat: ["座位", "Seat"],
  empty: ["空位", "Empty"],
  sitHere: ["坐这里", "Sit here"],
  addBot: ["添加机器人", "Add a bot"],
  removeBot: ["移除", "Remove"],
  ready: ["准备", "Ready"],
  notReady: ["取消准备", "Not ready"],
  isReady: ["已准备", "ready"],
  start: ["开始", "Start"],
  leave: ["离开房间", "Leave"],
  host: ["房主", "host"],
  bot: ["机器人", "Bot"],
  you: ["你", "you"],
  spectators: ["观众", "Spectators"],
  spectating: ["观战中", "Watching"],
  waitingStart: ["等待所有人准备或房主开始", "Waiting for everybody to be ready, or for the host to start"],
  disconnected: ["掉线", "offline"],
  auto: ["托管", "auto"],
  kick: ["请离", "Kick"],
  // table
  wind0: ["东", "East"],
  wind1: ["南", "South"],
  wind2: ["西", "West"],
  wind3: ["北", "North"],
  windShort0: ["东", "E"],
  windShort1: ["南", "S"],
  windShort2: ["西", "W"],
  windShort3: ["北", "N"],
  prevalent: ["{0}风圈", "{0} round"],
  handOf: ["第 {0}/{1} 盘", "Hand {0} of {1}"],
  wall: ["余 {0} 张", "{0} left"],
  dealer: ["庄", "Dealer"],
  yourTurn: ["轮到你出牌", "Your turn: discard a tile"],
  discardHelp: ["点一下选牌，再点一下打出（或按 ← → 选牌，回车打出）", "Click a tile, click again to discard (or ← → and Enter)"],
  waitingFor: ["等待 {0}", "Waiting for {0}"],
  claimPrompt: ["{0} 打出 {1}", "{0} discarded {1}"],
  robPrompt: ["{0} 加杠 {1}", "{0} adds {1} to a kong"],
  win: ["和", "Win"],
  selfDrawn: ["自摸", "Self-drawn"],
  pung: ["碰", "Pung"],
  kong: ["杠", "Kong"],
  chow: ["吃", "Chow"],
  pass: ["过", "Pass"],
  concealedKong: ["暗杠", "Concealed kong"],
  addedKong: ["加杠", "Add to kong"],
  declareReady: ["报听", "Declare ready"],
  declareReadyOn: ["报听：选一张打出", "Declare ready: choose the discard"],
  declared: ["听", "Ready"],
  blocked: ["停和", "Barred"],
  timeBank: ["银行 {0}s", "bank {0}s"],
  seconds: ["{0}s", "{0}s"],
  hint: ["听牌提示", "Wait hint"],
  hintOn: ["显示听牌提示", "Show wait hint"],
  waitsLabel: ["听", "Waits"],
  noWaits: ["未听牌", "Not ready"],
  unseen: ["剩 {0} 张", "{0} unseen"],
  fanPts: ["{0} 番", "{0} fans"],
  tooFew: ["不够起和番", "below the minimum"],
  ifDiscard: ["打 {0} 听：", "Discard {0}, wait on:"],
  autoPlay: ["托管中", "Auto-play on"],
  autoOff: ["取消托管", "Take back"],
  autoOn: ["托管", "Auto-play"],
  flowers: ["花", "Flowers"],
  // results
  handResult: ["本盘结果", "Hand result"],
  wins: ["{0} 和牌", "{0} wins"],
  winsFrom: ["{0} 和 {1} 的 {2}", "{0} wins on {1}'s {2}"],
  winsSelf: ["{0} 自摸 {1}", "{0} draws {1} and wins"],
  winsRob: ["{0} 抢 {1} 的杠 {2}", "{0} robs {1}'s kong of {2}"],
  drawGame: ["荒庄（流局）", "Exhaustive draw"],
  fan: ["番种", "Fan"],
  points: ["番数", "Points"],
  total: ["合计", "Total"],
  settlement: ["结算", "Settlement"],
  penalty: ["罚分", "Penalty"],
  continue: ["继续", "Continue"],
  waitingOthers: ["等待其他玩家…", "Waiting for the others…"],
  scoreboard: ["计分表", "Scoreboard"],
  hand: ["盘", "Hand"],
  winner: ["和牌", "Winner"],
  finalRanking: ["最终排名", "Final ranking"],
  place: ["第 {0} 名", "#{0}"],
  rematch: ["再来一局", "Rematch"],
  backToLobby: ["返回大厅", "Back to the lobby"],
  replay: ["回放", "Replay"],
  replayOf: ["对局 {0} 回放", "Replay of match {0}"],
  close: ["关闭", "Close"],
  prev: ["上一步", "Back"],
  next: ["下一步", "Next"],
  prevHand: ["上一盘", "Previous hand"],
  nextHand: ["下一盘", "Next hand"],
  step: ["第 {0}/{1} 步", "Step {0} of {1}"],
  replayUnavailable: ["这个对局的回放不能逐步播放（服务器未提供事件）。", "This match cannot be stepped through (the server sent no events)."],
  notFound: ["找不到这个对局", "No such match"],
  fouls_false: ["错和", "False win"],
  fouls_foul: ["诈和", "False win"],
  error: ["出错了：{0}", "Error: {0}"],
  seatOf: ["{0}家", "{0}"],
  showAll: ["所有人的手牌", "Everybody's hand"],
} satisfies Record<string, Entry>;

export type Key = keyof typeof STRINGS;

let current: Lang = "zh";

export function setLang(lang: Lang): void {
  current = lang;
}

export function lang(): Lang {
  return current;
}

export function t(key: Key, ...args: (string | number)[]): string {
  const entry: Entry = STRINGS[key];
  let s = entry[current === "zh" ? 0 : 1];
  args.forEach((a, i) => {
    s = s.split(`{${i}}`).join(String(a));
  });
  return s;
}

/** The language a first visit starts in: the browser's, Chinese or English. */
export function defaultLang(languages: readonly string[]): Lang {
  for (const l of languages) {
    const low = l.toLowerCase();
    if (low.startsWith("zh")) return "zh";
    if (low.startsWith("en")) return "en";
  }
  return "zh";
}

/** A fan's name in the current language (the server sends both). */
export function fanName(fan: readonly [unknown, string, string, ...unknown[]]): string {
  return current === "zh" ? fan[1] : fan[2];
}

/** Server error messages are English; a few codes get a translation. */
const ERROR_ZH: Record<string, string> = {
  "auth/bad_name": "名字不可用（1–20 个字符，字母、数字、空格、_-.'·）",
  "room/bad_code": "邀请码错误",
  "lobby/no_room": "没有这个房间",
  "room/full": "房间已满",
  "room/in_match": "对局进行中",
  "room/no_spectators": "这个房间不允许观战",
  "room/not_full": "四个座位都要有人（可以添加机器人）",
  "room/banned": "你已被请离这个房间",
  "action/stale": "操作过期了",
  "protocol/rate_limited": "操作太快了",
};

export function errorText(code: string, message: string): string {
  if (current === "zh" && ERROR_ZH[code]) return ERROR_ZH[code];
  return message || code;
}
