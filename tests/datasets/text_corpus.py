"""What the rendered lines say and which fonts draw them.

Text: Latin lines (words in three cases, numbers, prices, dates, times, codes, phone numbers, e-mail
addresses, punctuation) and Chinese lines (common words of receipts, signs, forms and news, mixed
with numbers and Latin codes as real Chinese documents are). Every character is in the PP-OCRv4
rec dictionary (tests/test_rendered_data.py checks it) and in every CJK font listed here.

Fonts: 12 families from Debian packages (make test installs them): DejaVu Sans / Serif / Sans Mono
(fonts-dejavu-core), Liberation Sans / Serif / Mono (fonts-liberation2), FreeSans / FreeSerif
(fonts-freefont-ttf), Noto Sans CJK SC / Noto Serif CJK SC (fonts-noto-cjk), WenQuanYi Micro Hei
(fonts-wqy-microhei), AR PL UKai CN (fonts-arphic-ukai, a brush-style Kai). Latin lines use all of
them (CJK fonts carry Latin glyphs too); Chinese lines use the four CJK families.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

DEBIAN_PACKAGES = ("fonts-dejavu-core", "fonts-liberation2", "fonts-freefont-ttf", "fonts-noto-cjk",
                   "fonts-wqy-microhei", "fonts-arphic-ukai")


@dataclasses.dataclass(frozen=True)
class Font:
    """One face: a family name, its file, the face index inside a .ttc, whether it draws Chinese."""

    family: str
    path: Path
    index: int = 0
    chinese: bool = False


_TT = Path("/usr/share/fonts/truetype")
_OT = Path("/usr/share/fonts/opentype")
FONTS = (
    Font("DejaVu Sans", _TT / "dejavu/DejaVuSans.ttf"),
    Font("DejaVu Sans", _TT / "dejavu/DejaVuSans-Bold.ttf"),
    Font("DejaVu Serif", _TT / "dejavu/DejaVuSerif.ttf"),
    Font("DejaVu Sans Mono", _TT / "dejavu/DejaVuSansMono.ttf"),
    Font("Liberation Sans", _TT / "liberation2/LiberationSans-Regular.ttf"),
    Font("Liberation Sans", _TT / "liberation2/LiberationSans-Italic.ttf"),
    Font("Liberation Serif", _TT / "liberation2/LiberationSerif-Regular.ttf"),
    Font("Liberation Serif", _TT / "liberation2/LiberationSerif-Bold.ttf"),
    Font("Liberation Mono", _TT / "liberation2/LiberationMono-Regular.ttf"),
    Font("FreeSans", _TT / "freefont/FreeSans.ttf"),
    Font("FreeSerif", _TT / "freefont/FreeSerif.ttf"),
    Font("FreeSerif", _TT / "freefont/FreeSerifItalic.ttf"),
    Font("Noto Sans CJK SC", _OT / "noto/NotoSansCJK-Regular.ttc", 2, True),
    Font("Noto Sans CJK SC", _OT / "noto/NotoSansCJK-Bold.ttc", 2, True),
    Font("Noto Serif CJK SC", _OT / "noto/NotoSerifCJK-Regular.ttc", 2, True),
    Font("WenQuanYi Micro Hei", _TT / "wqy/wqy-microhei.ttc", 0, True),
    Font("AR PL UKai CN", _TT / "arphic/ukai.ttc", 0, True),
)
CHINESE_FONTS = tuple(font for font in FONTS if font.chinese)


def fonts_available() -> bool:
    return all(font.path.is_file() for font in FONTS)


def missing_fonts_message() -> str:
    return f"fonts missing (make test installs them: apt-get install {' '.join(DEBIAN_PACKAGES)})"


_FONT_CACHE: dict[tuple[Font, int], object] = {}


def load_font(font: Font, size: int):  # noqa: ANN201 - a PIL FreeTypeFont
    """The PIL font of ``font`` at ``size`` pixels (cached: opening a CJK .ttc takes ~10 ms)."""
    from PIL import ImageFont  # Pillow is a test dependency (the dev extra)

    key = (font, size)
    if key not in _FONT_CACHE:
        _FONT_CACHE[key] = ImageFont.truetype(str(font.path), size, index=font.index)
    return _FONT_CACHE[key]


LATIN_WORDS = (
    "model", "runtime", "kernel", "tensor", "edge", "device", "paper", "invoice", "total", "date", "name",
    "street", "city", "order", "price", "amount", "phone", "email", "report", "quick", "brown", "fox",
    "jumps", "over", "lazy", "dog", "station", "market", "coffee", "bakery", "hotel", "airport", "ticket",
    "gate", "platform", "exit", "entrance", "receipt", "customer", "account", "balance", "payment",
    "delivery", "package", "weight", "height", "width", "length", "battery", "charger", "warning",
    "caution", "danger", "open", "closed", "monday", "friday", "sunday", "january", "october", "north",
    "south", "river", "green", "yellow", "purple", "orange", "window", "garden", "kitchen", "library",
    "museum", "hospital", "pharmacy", "school", "office", "building", "floor", "room", "parking",
    "welcome", "thank", "you", "please", "wait", "here", "free", "sale", "discount", "member", "card",
    "cash", "change", "tax", "subtotal", "quantity", "item", "serial", "number", "version", "release",
)
PUNCTUATION = (".", ",", ":", ";", "!", "?", "-", "/", "(", ")", "%", "#", "&", "+")
EMAIL_DOMAINS = ("mail.com", "example.org", "shop.cn", "post.net")

CHINESE_WORDS = (
    "发票", "金额", "日期", "时间", "地址", "电话", "姓名", "性别", "年龄", "号码", "合计", "总计", "单价",
    "数量", "商品", "名称", "规格", "型号", "备注", "收款", "付款", "现金", "找零", "会员", "积分", "优惠",
    "折扣", "价格", "人民币", "北京", "上海", "广州", "深圳", "杭州", "南京", "成都", "武汉", "西安", "天津",
    "重庆", "苏州", "长沙", "青岛", "中国", "公司", "有限", "责任", "股份", "集团", "科技", "信息", "技术",
    "服务", "中心", "银行", "医院", "学校", "大学", "图书馆", "博物馆", "火车站", "机场", "地铁", "公交",
    "出口", "入口", "停车场", "洗手间", "超市", "餐厅", "饭店", "酒店", "咖啡", "面包", "牛奶", "水果",
    "蔬菜", "鸡蛋", "大米", "面条", "饮料", "啤酒", "茶叶", "香烟", "药品", "手机", "电脑", "电视",
    "空调", "冰箱", "洗衣机", "充电器", "电池", "耳机", "键盘", "鼠标", "显示器", "打印机", "路", "街",
    "号", "楼", "层", "室", "区", "市", "省", "县", "镇", "村", "东", "西", "南", "北", "中", "新",
    "老", "大", "小", "高", "低", "长", "短", "欢迎", "光临", "谢谢", "请", "勿", "吸烟", "注意", "安全",
    "小心", "地滑", "禁止", "通行", "营业", "时间", "周一", "周日", "上午", "下午", "晚上", "今天",
    "明天", "昨天", "年", "月", "日", "元", "角", "分", "公斤", "千克", "米", "厘米", "毫升", "升",
    "经济", "发展", "社会", "文化", "教育", "科学", "研究", "管理", "工作", "生活", "环境", "保护",
    "健康", "工程", "项目", "计划", "政府", "人民", "国家", "世界", "国际", "市场", "企业", "产品",
    "质量", "标准", "检验", "合格", "生产", "日期", "保质期", "储存", "条件", "阴凉", "干燥", "处",
    "使用", "说明", "方法", "成分", "配料", "净含量", "产地", "电子", "邮件", "网址", "客服", "热线",
    "快递", "订单", "编号", "收件人", "寄件人", "签收", "门诊", "挂号", "处方", "检查", "报告", "结果",
    "考试", "成绩", "班级", "学生", "老师", "课程", "作业", "通知", "会议", "记录", "合同", "协议",
    "甲方", "乙方", "签字", "盖章", "有效期", "至", "自", "第", "条", "款", "页", "共",
)
CHINESE_PUNCTUATION = ("，", "。", "：", "、", "（", "）", "！", "？", "-", "/", ":")


def latin_token(rng: np.random.Generator) -> str:
    kind = rng.random()
    if kind < 0.55:
        word = str(rng.choice(LATIN_WORDS))
        case = rng.random()
        word = word.upper() if case < 0.15 else word.capitalize() if case < 0.45 else word
        return word + (str(rng.choice(PUNCTUATION)) if rng.random() < 0.2 else "")
    if kind < 0.70:
        return str(int(rng.integers(0, 100000)))
    if kind < 0.78:
        return f"{int(rng.integers(0, 1000))}.{int(rng.integers(0, 100)):02d}"
    if kind < 0.85:
        day, month = int(rng.integers(1, 32)), int(rng.integers(1, 13))
        return f"{day:02d}/{month:02d}/{int(rng.integers(1990, 2031))}"
    if kind < 0.90:
        return f"{int(rng.integers(0, 24)):02d}:{int(rng.integers(0, 60)):02d}"
    if kind < 0.94:
        return f"{int(rng.integers(100, 1000))}-{int(rng.integers(1000, 10000))}"
    if kind < 0.97:
        letters = "".join(chr(int(c)) for c in rng.integers(65, 91, size=int(rng.integers(2, 4))))
        return f"{letters}{int(rng.integers(10, 10000))}"
    return f"{rng.choice(LATIN_WORDS)}{int(rng.integers(1, 100))}@{rng.choice(EMAIL_DOMAINS)}"


def latin_line(rng: np.random.Generator, max_chars: int) -> str:
    """Two to six tokens separated by spaces, cut to whole tokens within ``max_chars``."""
    tokens = [latin_token(rng) for _ in range(int(rng.integers(2, 7)))]
    text = tokens[0]
    for token in tokens[1:]:
        if len(text) + 1 + len(token) > max_chars:
            break
        text += " " + token
    return text[:max_chars]


def chinese_line(rng: np.random.Generator, max_chars: int) -> str:
    """Chinese words run together, with a number, a Latin code or punctuation now and then."""
    parts: list[str] = []
    length = 0
    target = int(rng.integers(3, max_chars + 1))
    while length < target:
        kind = rng.random()
        if kind < 0.75:
            part = str(rng.choice(CHINESE_WORDS))
        elif kind < 0.87:
            part = str(int(rng.integers(0, 10000)))
        elif kind < 0.93:
            part = str(rng.choice(CHINESE_PUNCTUATION))
        else:
            part = latin_token(rng).split("@")[0][:6]
        if length + len(part) > max_chars and parts:
            break
        parts.append(part)
        length += len(part)
    return "".join(parts)[:max_chars]
