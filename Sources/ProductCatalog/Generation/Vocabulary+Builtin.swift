/// The texts of `Datasets/vocabularies/`, verbatim (a test checks they match the files).
enum BuiltinVocabularyText {
    static let files: [String: String] = [
        "en.txt": #"""
# English product-name vocabulary for the synthetic catalog generator.
# A name is: brand, adjectives, noun, specs, in that order, 20–60 UTF-8 bytes.
[brands]
Acme
Northwind
Bluepeak
Corvid
Elmstone
Fableworks
Granite
Harbor
Ironleaf
Juniper
Kestrel
Lumen
Maple & Co
Nimbus
Oakridge
Pinecrest
Quill
Redwood
Saltmarsh
Tidewater
Umber
Vantage
Willow
Yarrow
Zephyr
Brightline
Copperfield
Driftwood
Evergreen
Foxglove
Glacier
Hollow Creek
Indigo
Larkspur
Meridian
Nordhaven
Orchard
Prairie
Riverstone
Sundial
[adjectives]
Organic
Wireless
Stainless
Ceramic
Portable
Foldable
Waterproof
Ergonomic
Compact
Heavy-Duty
Lightweight
Vintage
Classic
Modern
Rustic
Premium
Eco-Friendly
Rechargeable
Adjustable
Insulated
Non-Stick
Handmade
Cotton
Wool
Leather
Bamboo
Glass
Copper
Cast Iron
Silicone
Smart
Digital
Analog
Quiet
Ultra-Thin
Oversized
Slim
Soft
Warm
Cooling
Breathable
Scented
Unscented
Matte
Glossy
Red
Blue
Green
Black
White
Grey
Navy
Ivory
Olive
Teal
Burgundy
Sand
Charcoal
Striped
Quilted
Reversible
Stackable
Magnetic
Solar
Bluetooth
Noise-Cancelling
Anti-Slip
Washable
Travel
Outdoor
Indoor
Kids
Mini
Large
Deluxe
Essential
Professional
Everyday
Weekend
[nouns]
Coffee Grinder
French Press
Kettle
Teapot
Mug
Water Bottle
Lunch Box
Frying Pan
Saucepan
Dutch Oven
Chef Knife
Cutting Board
Mixing Bowl
Blender
Toaster
Rice Cooker
Headphones
Earbuds
Speaker
Keyboard
Mouse
Monitor Stand
Desk Lamp
Charger
Power Bank
USB Cable
Phone Case
Tablet Sleeve
Backpack
Tote Bag
Duffel Bag
Wallet
Sunglasses
Wristwatch
Running Shoes
Sneakers
Hiking Boots
Sandals
Socks
T-Shirt
Hoodie
Sweater
Rain Jacket
Parka
Scarf
Beanie
Gloves
Yoga Mat
Dumbbell Set
Jump Rope
Tent
Sleeping Bag
Camping Chair
Lantern
Flashlight
Pillow
Duvet
Bed Sheets
Blanket
Towel Set
Bath Mat
Shower Curtain
Candle
Vase
Picture Frame
Wall Clock
Bookshelf
Office Chair
Standing Desk
Notebook
Fountain Pen
Pencil Set
Sketchbook
Puzzle
Board Game
Building Blocks
Plush Bear
Dog Bed
Cat Tree
Leash
Bird Feeder
Garden Hose
Plant Pot
Watering Can
Pruning Shears
Drill
Screwdriver Set
Tape Measure
Toolbox
Shampoo
Face Cream
Toothbrush
Hair Dryer
Razor
Perfume
Sunscreen
Vitamin C Serum
Protein Powder
Green Tea
Dark Chocolate
Olive Oil
Honey
Granola
Pasta
Hot Sauce
[specs]
500ml
1L
2L
250g
1kg
2-Pack
3-Pack
6-Pack
Set of 4
Size M
Size L
Size XL
10 inch
12 inch
15.6 inch
27 inch
64GB
128GB
256GB
20000mAh
USB-C
Gen 2
Pro
Plus
Max
Lite
2024 Edition
Refill
Travel Size
Family Size
"""#,
        "ko.txt": #"""
# Korean product-name vocabulary for the synthetic catalog generator (NFC, precomposed Hangul).
[brands]
한빛
새솔
푸른숲
다온
라온
미르
가람
누리
해담
별빛
소담
온새미
하늘채
도담
늘봄
마루
바람결
은하
단비
초록
[adjectives]
무선
휴대용
접이식
방수
친환경
고급
부드러운
따뜻한
시원한
가벼운
튼튼한
작은
큰
빨간
파란
검은
하얀
회색
유기농
스테인리스
세라믹
원목
면
가죽
실리콘
충전식
저소음
미니
대용량
프리미엄
기본
클래식
모던
빈티지
어린이용
남성용
여성용
캠핑용
사무용
여행용
[nouns]
커피
원두
텀블러
머그컵
물병
도시락
프라이팬
냄비
칼
도마
그릇
전기밥솥
믹서기
토스터
헤드폰
이어폰
스피커
키보드
마우스
모니터
충전기
보조배터리
케이블
휴대폰 케이스
노트북 파우치
백팩
가방
지갑
선글라스
시계
운동화
등산화
샌들
양말
티셔츠
후드티
스웨터
패딩
우비
목도리
모자
장갑
요가매트
아령
텐트
침낭
캠핑의자
랜턴
손전등
베개
이불
담요
수건
러그
양초
꽃병
액자
벽시계
책장
의자
책상
공책
만년필
색연필
퍼즐
보드게임
블록
인형
강아지 침대
고양이 장난감
화분
물뿌리개
드릴
공구함
샴푸
크림
칫솔
드라이기
향수
선크림
녹차
초콜릿
김치
라면
고추장
참기름
[specs]
500ml
1L
2개입
3개입
6개입
세트
대형
중형
소형
특대
1kg
250g
2024년형
리필
"""#,
        "zh.txt": #"""
# Chinese (simplified) product-name vocabulary for the synthetic catalog generator.
[brands]
星光
云端
青松
锦绣
明月
长城
华彩
天籁
晨曦
海蓝
金禾
雅居
乐途
悦享
知音
木兰
凌云
绿野
瑞丰
和风
[adjectives]
无线
便携
折叠
防水
环保
高端
柔软
保暖
清凉
轻薄
结实
迷你
大号
红色
蓝色
黑色
白色
灰色
有机
不锈钢
陶瓷
实木
纯棉
真皮
硅胶
充电式
静音
大容量
经典
时尚
复古
儿童
男士
女士
户外
办公
旅行
家用
智能
加厚
[nouns]
咖啡
咖啡豆
保温杯
马克杯
水杯
饭盒
平底锅
汤锅
菜刀
砧板
碗
电饭煲
搅拌机
面包机
耳机
蓝牙耳机
音箱
键盘
鼠标
显示器
充电器
充电宝
数据线
手机壳
电脑包
双肩包
手提包
钱包
太阳镜
手表
运动鞋
登山鞋
凉鞋
袜子
T恤
卫衣
毛衣
羽绒服
雨衣
围巾
帽子
手套
瑜伽垫
哑铃
帐篷
睡袋
折叠椅
露营灯
手电筒
枕头
被子
毛毯
毛巾
地毯
香薰蜡烛
花瓶
相框
挂钟
书架
椅子
书桌
笔记本
钢笔
彩色铅笔
拼图
桌游
积木
毛绒玩具
狗窝
猫爬架
花盆
洒水壶
电钻
工具箱
洗发水
面霜
牙刷
吹风机
香水
防晒霜
绿茶
巧克力
橄榄油
蜂蜜
[specs]
500毫升
1升
2件装
3件装
6件装
套装
大号
中号
小号
加大
1公斤
250克
2024新款
替换装
"""#,
        "scopes.txt": #"""
# Departments (scopes) of the synthetic catalog, with a relative weight.
kitchen	18
electronics	16
fashion	15
home	12
sports	9
outdoor	7
beauty	7
grocery	6
office	4
toys	3
pets	2
garden	1
"""#,
        "tokens.txt": #"""
# Tags (tokens) of the synthetic catalog, with a relative weight.
sale	20
new	18
bestseller	12
free-shipping	15
eco	8
limited	5
gift	9
bundle	6
clearance	4
exclusive	3
refurbished	2
preorder	2
handmade	3
imported	5
local	4
organic	4
vegan	2
kids	4
premium	6
budget	6
"""#,
    ]
}
