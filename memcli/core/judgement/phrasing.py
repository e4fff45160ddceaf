"""How notes phrase a fact: the word lists the duplicates judgement reads besides its
concepts (judgement.concepts).

Bilingual and small on purpose, so that a verdict can be explained by a line of it:

- word forms fold to one stem (fixed / fixes / fixing → fix);
- function words carry no fact: dropped (the, is, 的, 了) or light (use, 用, 进行);
- negation cues, with the compounds that deny nothing (不过, don't forget), and the
  negative prefixes that turn a word round (incomplete);
- comparisons ("X over Y", X 而不是 Y): which side of one a thing stands on is the fact.
"""

from __future__ import annotations

import re

# --- word forms -----------------------------------------------------------------------------

_IRREGULAR = {
    "ran": "run", "kept": "keep", "built": "build", "wrote": "write", "written": "write",
    "made": "make", "took": "take", "taken": "take", "went": "go", "gone": "go", "got": "get",
    "gotten": "get", "sent": "send", "spent": "spend", "lost": "lose", "found": "find",
    "held": "hold", "broke": "break", "chose": "choose", "chosen": "choose", "began": "begin",
    "begun": "begin", "did": "do", "done": "do", "saw": "see", "seen": "see", "paid": "pay",
    "led": "lead", "met": "meet", "shut": "shut", "thought": "think", "brought": "bring",
    "taught": "teach", "bought": "buy", "told": "tell", "sold": "sell", "understood": "understand",
    "frozen": "freeze", "froze": "freeze", "won't": "will", "can't": "can", "cannot": "can", "don't": "do",
    "doesn't": "do", "didn't": "do",
}  # fmt: skip
_DOUBLE = re.compile(r"([bdfgklmnprstz])\1$")


def stem(word: str) -> str:
    """A light stem: inflections folded so that every form of a word meets one key."""
    word = _IRREGULAR.get(word, word)
    n = len(word)
    if n <= 3 or not word.isalpha():
        return word
    if word.endswith("iness") and n > 7:
        word = word[:-5] + "i"
    elif word.endswith("ness") and n > 6:
        word = word[:-4]
    elif word.endswith(("ies", "ied")) and n > 4:
        word = word[:-3] + "i"
    elif word.endswith("ing") and n > 5:
        word = word[:-3]
    elif (word.endswith("ed") and not word.endswith("eed") and n > 4) or word.endswith(
        ("sses", "xes", "zes", "ches", "shes")
    ):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    elif word.endswith("ly") and n > 5:
        word = word[:-2]
    elif word.endswith(("tion", "sion")) and n > 6:
        word = word[:-3]  # encryption -> encrypt, migration -> migrat(e)
    if word.endswith("ment") and len(word) > 7:
        word = word[:-4]
    if _DOUBLE.search(word) and len(word) > 3 and not word.endswith(("ll", "ss")):
        word = word[:-1]
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    if word.endswith("y") and len(word) > 3:
        word = word[:-1] + "i"
    return word


# --- words that carry no fact ----------------------------------------------------------------

STOP_EN = frozenset(
    """a an the this that these those it its it's is are was were on be been being am has have had
    having do does will would shall should can could may might must to of in at by for from with
    as into onto about around roughly approximately approx nearly almost and or but so then than
    also too just really very quite there here we i you he she they us me my our your their his her
    them him which who whom what when where how let's please yet still already again currently
    now some any such both either each own's via per if that's there's it'll we're i'm we've""".split()
)
LIGHT_EN = frozenset(
    """use make get take go come put keep stay remain become seem look need want do try let give
    show say tell lasts last one thing things way ways way work mode part bit lot kind sort
    everything something anything nothing all whole fully entirely overall live lives located stored
    store resides sits wide""".split()
)
STOP_ZH = frozenset("的了是在和与及跟同把被由将也都就又呢吗吧啊着而且或于给让这那些已很个为到对里呀哦嘛")
LIGHT_ZH = (
    "进行", "可以", "能够", "需要", "要", "会", "能", "用", "使用", "采用", "通过", "现在", "目前",
    "当前", "已经", "一下", "一些", "一个", "这个", "那个", "这次", "那次", "设为", "设置为",
    "作为", "成为", "变成", "属于", "就是", "还是", "只是", "都是", "正在", "仍然", "依然", "仍", "还",
    "所有", "全部", "一律", "总是", "始终", "以后", "今后", "从现在起", "往后", "大约", "左右",
    "大概", "差不多", "跑在", "部署在", "放在", "位于", "存放在", "保存在", "尽量", "一点", "一下子", "怎么",
    "如何", "支持", "我们", "咱们", "你们", "他们", "我", "你", "他", "她", "它", "上", "下", "那个", "这些",
    "那些", "的话", "方面", "相关", "情况",
)  # fmt: skip
# --- negation ----------------------------------------------------------------------------------

NEGATIONS_EN = frozenset(
    """not no never don't dont doesn't isn't aren't wasn't weren't won't can't cannot couldn't
    shouldn't mustn't didn't hasn't haven't hadn't wouldn't without none nothing nobody neither nor
    n't forbid forbidden prohibit prohibited ban banned""".split()
)
NO_LONGER = ("no longer", "not anymore", "no more")
NEGATIONS_ZH = (
    "不再", "不要", "不用", "不必", "不能", "不会", "不是", "没有", "无法", "并非", "不", "没", "未", "无",
    "非", "别", "勿", "莫", "否", "禁止", "严禁", "不准", "不许", "不得",
)  # fmt: skip
# compounds with a negation character that deny nothing, and double negations
NOT_NEGATIONS_ZH = (
    "不过", "不仅", "不断", "不少", "不错", "不久", "不管", "不得不", "差不多", "不一定", "不同", "不但",
    "不论", "不止", "不妨", "不然", "要不", "不禁", "了不起", "对不起", "来不及", "忍不住", "不见得",
    "不如", "非常", "除非", "莫非", "无非", "无论", "无数", "无缝", "毫无疑问", "未来", "别人", "别的",
    "别处", "区别", "类别", "特别", "分别", "级别", "识别", "告别", "差别", "性别", "个别", "鉴别", "辨别",
    "派别", "淹没", "埋没", "出没", "比如", "比例", "比率", "比特", "比赛", "无比", "不是不", "不能不",
    "没有不", "并非不", "不会不", "无不", "未尝不", "不可不", "别忘", "不要忘", "没问题", "无误",
    "不可或缺",
)  # fmt: skip
NOT_NEGATIONS_EN = ("don't forget", "do not forget", "dont forget", "never forget", "no doubt", "not only",
                    "no matter", "nothing else", "not just")  # fmt: skip
# "X over Y", "X 而不是 Y": which side of it a thing stands on is the fact
COMPARATORS = ("over", "rather than", "instead of", "in favour of", "in favor of", "than", "replaces",
               "replaced", "supersedes", "优于", "胜过", "而非", "替代", "取代", "代替", "比")  # fmt: skip
# Words a negative prefix turns into their opposite: "not incomplete" is "complete".
NEGATIVE_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non")
