/**
 * Name pools and menu templates of the demo city (Casablanca). Data only: demo-city.ts draws
 * from it. Prices are in dirhams (the platform's currency, docs/decisions.md) and become cents
 * when written. Some names carry accents on purpose ("Crème brûlée", "Café au lait"), so that
 * accent-insensitive search can be shown ("creme" finds them).
 */

export interface MainCategoryData {
  name: string;
  icon: string;
}

export interface OptionGroupData {
  name: string;
  required: boolean;
  min: number;
  max: number;
  /** [name, extra price in dirhams] */
  values: [string, number][];
}

export interface ProductData {
  name: string;
  /** Dirhams. */
  price: number;
  description?: string;
  /** Keys of OPTION_GROUPS. */
  options?: string[];
  /** Key of SUPPLEMENTS. */
  supplements?: string;
}

export interface MenuData {
  name: string;
  description: string;
  categories: { name: string; products: ProductData[] }[];
}

/** One weekly pattern: the same periods every day; `closedDay` takes one day off. */
export interface HoursPattern {
  weight: number;
  periods: [string, string][];
  closedDay?: boolean;
}

export interface StoreCategoryData {
  name: string;
  mainCategory: string;
  icon: string;
  /** How common such stores are. */
  weight: number;
  tagline: string;
  brands: string[];
  hours: HoursPattern[];
  menus: MenuData[];
}

export const MAIN_CATEGORIES: MainCategoryData[] = [
  { name: 'Food', icon: 'utensils' },
  { name: 'Groceries', icon: 'basket' },
  { name: 'Pharmacy', icon: 'pill' },
  { name: 'Bakery & Pastry', icon: 'croissant' },
  { name: 'Drinks', icon: 'cup' },
  { name: 'Flowers', icon: 'flower' },
];

export const OPTION_GROUPS: Record<string, OptionGroupData> = {
  pizzaSize: {
    name: 'Size',
    required: true,
    min: 1,
    max: 1,
    values: [
      ['Small', 0],
      ['Medium', 15],
      ['Large', 25],
    ],
  },
  crust: {
    name: 'Crust',
    required: false,
    min: 0,
    max: 1,
    values: [
      ['Classic', 0],
      ['Thin', 0],
      ['Stuffed crust', 12],
    ],
  },
  cooking: {
    name: 'Cooking',
    required: true,
    min: 1,
    max: 1,
    values: [
      ['Medium', 0],
      ['Well done', 0],
    ],
  },
  meal: {
    name: 'Make it a meal',
    required: false,
    min: 0,
    max: 1,
    values: [
      ['Fries & soda', 20],
      ['Sweet potato fries & soda', 25],
    ],
  },
  tacosSize: {
    name: 'Size',
    required: true,
    min: 1,
    max: 1,
    values: [
      ['M', 0],
      ['L', 12],
      ['XL', 25],
    ],
  },
  tacosMeat: {
    name: 'Meats',
    required: true,
    min: 1,
    max: 2,
    values: [
      ['Chicken', 0],
      ['Kefta', 0],
      ['Cordon bleu', 5],
      ['Nuggets', 0],
      ['Merguez', 5],
    ],
  },
  tacosSauce: {
    name: 'Sauces',
    required: false,
    min: 0,
    max: 2,
    values: [
      ['Algérienne', 0],
      ['Samouraï', 0],
      ['Harissa', 0],
      ['Fromagère', 3],
    ],
  },
  sushiPieces: {
    name: 'Pieces',
    required: true,
    min: 1,
    max: 1,
    values: [
      ['6 pieces', 0],
      ['12 pieces', 35],
    ],
  },
  portion: {
    name: 'Portion',
    required: true,
    min: 1,
    max: 1,
    values: [
      ['1 person', 0],
      ['2 persons', 60],
      ['Family (4)', 150],
    ],
  },
  drinkSize: {
    name: 'Size',
    required: true,
    min: 1,
    max: 1,
    values: [
      ['Small', 0],
      ['Large', 6],
    ],
  },
  milk: {
    name: 'Milk',
    required: false,
    min: 0,
    max: 1,
    values: [
      ['Whole milk', 0],
      ['Oat milk', 5],
      ['Almond milk', 5],
    ],
  },
  juiceSize: {
    name: 'Size',
    required: true,
    min: 1,
    max: 1,
    values: [
      ['33 cl', 0],
      ['50 cl', 8],
    ],
  },
  bowlBase: {
    name: 'Base',
    required: true,
    min: 1,
    max: 1,
    values: [
      ['Quinoa', 0],
      ['Brown rice', 0],
      ['Mixed greens', 0],
    ],
  },
  dressing: {
    name: 'Dressing',
    required: false,
    min: 0,
    max: 1,
    values: [
      ['Lemon vinaigrette', 0],
      ['Honey mustard', 0],
      ['Tahini', 2],
    ],
  },
  cakeSize: {
    name: 'Size',
    required: true,
    min: 1,
    max: 1,
    values: [
      ['4 persons', 0],
      ['6 persons', 60],
      ['8 persons', 120],
    ],
  },
  bouquetSize: {
    name: 'Size',
    required: true,
    min: 1,
    max: 1,
    values: [
      ['Classic', 0],
      ['Generous', 80],
      ['Luxe', 180],
    ],
  },
  wrapping: {
    name: 'Wrapping',
    required: false,
    min: 0,
    max: 1,
    values: [
      ['Kraft paper', 0],
      ['Gift box', 40],
    ],
  },
};

/** [name, price in dirhams] */
export const SUPPLEMENTS: Record<string, [string, number][]> = {
  pizza: [
    ['Extra cheese', 5],
    ['Mushrooms', 6],
    ['Olives', 4],
    ['Jalapeños', 5],
    ['Chorizo', 10],
  ],
  burger: [
    ['Extra cheese', 5],
    ['Beef bacon', 8],
    ['Fried egg', 5],
    ['Caramelised onions', 4],
    ['Extra patty', 20],
  ],
  tacos: [
    ['Extra cheese', 5],
    ['Gratiné', 8],
    ['Extra meat', 15],
  ],
  sushi: [
    ['Extra ginger', 3],
    ['Spicy mayo', 4],
    ['Teriyaki sauce', 4],
  ],
  moroccan: [
    ['Khobz (bread)', 3],
    ['Olives', 5],
    ['Harissa', 2],
  ],
  coffee: [
    ['Extra shot', 6],
    ['Whipped cream', 5],
    ['Caramel syrup', 5],
    ['Vanilla syrup', 5],
  ],
  juice: [
    ['Ginger shot', 8],
    ['Chia seeds', 6],
    ['Honey', 4],
  ],
  healthy: [
    ['Avocado', 12],
    ['Grilled chicken', 18],
    ['Feta', 8],
    ['Boiled egg', 5],
  ],
  dessert: [
    ['Whipped cream', 5],
    ['Chocolate sauce', 6],
    ['Vanilla ice cream scoop', 12],
  ],
  flowers: [
    ['Greeting card', 15],
    ['Box of chocolates', 90],
    ['Small teddy bear', 120],
  ],
};

const SOFT_DRINKS: ProductData[] = [
  { name: 'Coca-Cola 33 cl', price: 12 },
  { name: 'Eau minérale 50 cl', price: 8 },
  { name: 'Limonade maison', price: 18 },
  { name: 'Thé à la menthe', price: 15 },
];

export const STORE_CATEGORIES: StoreCategoryData[] = [
  {
    name: 'Pizza',
    mainCategory: 'Food',
    icon: 'pizza',
    weight: 12,
    tagline: 'Wood-fired pizzas and fresh pasta',
    brands: [
      'Pizzeria Napoli',
      'Pizza Roma',
      'Trattoria Bella Vita',
      'Vesuvio',
      'Mamma Mia',
      'Da Luigi',
      'Pizza Toscana',
      'Il Forno',
      'Pizzeria Milano',
      'La Piazza',
      'Sole Mio',
      'Forno Rosso',
    ],
    hours: [
      { weight: 5, periods: [['11:30', '23:30']] },
      { weight: 3, periods: [['12:00', '00:00']] },
      { weight: 2, periods: [['18:00', '02:00']] },
      { weight: 1, periods: [['11:30', '23:00']], closedDay: true },
    ],
    menus: [
      {
        name: 'Pizzas & pasta',
        description: 'Our dough rises for 48 hours.',
        categories: [
          {
            name: 'Pizzas',
            products: [
              {
                name: 'Pizza Margherita',
                price: 55,
                description: 'Tomato, mozzarella, basil.',
                options: ['pizzaSize', 'crust'],
                supplements: 'pizza',
              },
              {
                name: 'Pizza Regina',
                price: 65,
                description: 'Tomato, mozzarella, turkey ham, mushrooms.',
                options: ['pizzaSize', 'crust'],
                supplements: 'pizza',
              },
              {
                name: 'Pizza Quattro Formaggi',
                price: 75,
                description: 'Mozzarella, gorgonzola, parmesan, goat cheese.',
                options: ['pizzaSize', 'crust'],
                supplements: 'pizza',
              },
              { name: 'Pizza Pepperoni', price: 70, options: ['pizzaSize', 'crust'], supplements: 'pizza' },
              {
                name: 'Pizza Végétarienne',
                price: 60,
                description: 'Grilled vegetables, olives, mozzarella.',
                options: ['pizzaSize', 'crust'],
                supplements: 'pizza',
              },
              { name: 'Pizza Fruits de mer', price: 85, options: ['pizzaSize', 'crust'], supplements: 'pizza' },
              { name: 'Calzone', price: 70, options: ['pizzaSize'], supplements: 'pizza' },
            ],
          },
          {
            name: 'Pasta',
            products: [
              { name: 'Spaghetti bolognaise', price: 55 },
              { name: "Penne all'arrabbiata", price: 50 },
              { name: 'Tagliatelle carbonara', price: 60 },
              { name: 'Lasagnes maison', price: 65 },
            ],
          },
          {
            name: 'Starters',
            products: [
              { name: 'Garlic bread', price: 20 },
              { name: 'Bruschetta', price: 25 },
              { name: 'Caesar salad', price: 45 },
            ],
          },
        ],
      },
      {
        name: 'Drinks & desserts',
        description: 'To go with your pizza.',
        categories: [
          { name: 'Drinks', products: SOFT_DRINKS },
          {
            name: 'Desserts',
            products: [
              { name: 'Tiramisu', price: 35 },
              { name: 'Panna cotta', price: 30 },
            ],
          },
        ],
      },
    ],
  },
  {
    name: 'Burgers',
    mainCategory: 'Food',
    icon: 'burger',
    weight: 12,
    tagline: 'Smash burgers and crispy fries',
    brands: [
      'Burger House',
      'Smash Brothers',
      'Le Grill',
      'Burger Factory',
      'Big Bite',
      'The Patty',
      'Grill & Co',
      'Street Burger',
      'Burger Lab',
      'Black Angus',
      'Bun Bun',
      'Flame',
    ],
    hours: [
      { weight: 4, periods: [['12:00', '00:00']] },
      { weight: 3, periods: [['12:00', '02:00']] },
      { weight: 2, periods: [['11:00', '23:00']] },
      { weight: 1, periods: [['18:00', '03:00']] },
    ],
    menus: [
      {
        name: 'Burgers',
        description: 'Halal beef, brioche buns baked every morning.',
        categories: [
          {
            name: 'Burgers',
            products: [
              { name: 'Classic burger', price: 55, options: ['cooking', 'meal'], supplements: 'burger' },
              { name: 'Cheeseburger', price: 60, options: ['cooking', 'meal'], supplements: 'burger' },
              { name: 'Double smash burger', price: 80, options: ['cooking', 'meal'], supplements: 'burger' },
              { name: 'Crispy chicken burger', price: 55, options: ['meal'], supplements: 'burger' },
              { name: 'Veggie burger', price: 50, options: ['meal'], supplements: 'burger' },
              { name: 'BBQ burger', price: 75, options: ['cooking', 'meal'], supplements: 'burger' },
            ],
          },
          {
            name: 'Sides',
            products: [
              { name: 'Fries', price: 18 },
              { name: 'Sweet potato fries', price: 25 },
              { name: 'Onion rings', price: 22 },
              { name: 'Chicken wings (6)', price: 40 },
            ],
          },
          { name: 'Drinks', products: SOFT_DRINKS.slice(0, 3) },
        ],
      },
      {
        name: 'Desserts',
        description: 'Something sweet.',
        categories: [
          {
            name: 'Desserts',
            products: [
              { name: 'Brownie', price: 25 },
              { name: 'Milkshake vanille', price: 30 },
              { name: 'Cookie géant', price: 20 },
            ],
          },
        ],
      },
    ],
  },
  {
    name: 'Sushi',
    mainCategory: 'Food',
    icon: 'sushi',
    weight: 7,
    tagline: 'Sushi, maki and Japanese hot dishes',
    brands: ['Sakura', 'Tokyo Roll', 'Wasabi', 'Osaka Sushi', 'Kyoto', 'Maki Time', 'Sushi Box', 'Nori', 'Umami', 'Sushi Bar Anfa'],
    hours: [
      {
        weight: 4,
        periods: [
          ['12:00', '15:00'],
          ['19:00', '23:30'],
        ],
      },
      { weight: 3, periods: [['12:00', '23:00']] },
      { weight: 2, periods: [['12:00', '23:00']], closedDay: true },
    ],
    menus: [
      {
        name: 'Sushi & rolls',
        description: 'Rolled to order.',
        categories: [
          {
            name: 'Maki & rolls',
            products: [
              { name: 'Maki saumon', price: 45, options: ['sushiPieces'], supplements: 'sushi' },
              { name: 'Maki thon', price: 48, options: ['sushiPieces'], supplements: 'sushi' },
              { name: 'California roll saumon avocat', price: 55, options: ['sushiPieces'], supplements: 'sushi' },
              { name: 'Spicy tuna roll', price: 60, options: ['sushiPieces'], supplements: 'sushi' },
              { name: 'Dragon roll', price: 75, options: ['sushiPieces'], supplements: 'sushi' },
            ],
          },
          {
            name: 'Sashimi & nigiri',
            products: [
              { name: 'Sashimi saumon', price: 75, supplements: 'sushi' },
              { name: 'Nigiri saumon (2)', price: 30 },
              { name: 'Nigiri crevette (2)', price: 32 },
            ],
          },
          {
            name: 'Hot dishes',
            products: [
              { name: 'Gyoza poulet', price: 40 },
              { name: 'Ramen poulet', price: 70 },
              { name: 'Yakitori', price: 45 },
            ],
          },
          {
            name: 'Drinks',
            products: [
              { name: 'Thé vert', price: 15 },
              { name: 'Ice tea pêche', price: 18 },
            ],
          },
        ],
      },
      {
        name: 'Lunch boxes',
        description: 'Weekday lunch.',
        categories: [
          {
            name: 'Boxes',
            products: [
              { name: 'Box midi (18 pièces)', price: 95 },
              { name: 'Box duo (36 pièces)', price: 180 },
            ],
          },
        ],
      },
    ],
  },
  {
    name: 'Tacos',
    mainCategory: 'Food',
    icon: 'taco',
    weight: 9,
    tagline: 'French tacos, gratinés and sandwiches',
    brands: [
      'Tacos House',
      'Tacos Express',
      'Chez Momo',
      'Tacos King',
      'Le Gratiné',
      'Tacos Factory',
      'Tacos Corner',
      'Snack El Baraka',
      'Tacos & Co',
      'Le Spot',
    ],
    hours: [
      { weight: 4, periods: [['12:00', '01:00']] },
      { weight: 3, periods: [['11:00', '23:30']] },
      { weight: 2, periods: [['18:00', '04:00']] },
    ],
    menus: [
      {
        name: 'Tacos',
        description: 'Every tacos comes with fries inside.',
        categories: [
          {
            name: 'Tacos',
            products: [
              { name: 'Tacos classique', price: 35, options: ['tacosSize', 'tacosMeat', 'tacosSauce'], supplements: 'tacos' },
              { name: 'Tacos gratiné', price: 45, options: ['tacosSize', 'tacosMeat', 'tacosSauce'], supplements: 'tacos' },
              { name: 'Tacos mixte', price: 40, options: ['tacosSize', 'tacosSauce'], supplements: 'tacos' },
            ],
          },
          {
            name: 'Sandwiches',
            products: [
              { name: 'Panini poulet', price: 30 },
              { name: 'Sandwich kefta', price: 28 },
              { name: 'Chawarma poulet', price: 30, supplements: 'tacos' },
            ],
          },
          {
            name: 'Sides',
            products: [
              { name: 'Frites', price: 15 },
              { name: 'Nuggets (6)', price: 25 },
            ],
          },
          { name: 'Drinks', products: SOFT_DRINKS.slice(0, 2) },
        ],
      },
    ],
  },
  {
    name: 'Moroccan',
    mainCategory: 'Food',
    icon: 'tajine',
    weight: 12,
    tagline: 'Home-style Moroccan cooking',
    brands: [
      'Dar Nour',
      'Riad Yasmine',
      'Tajine & Co',
      'La Table de Fès',
      'Chez Lalla Zineb',
      'Le Couscoussier',
      'Bab Lmdina',
      "Saveurs d'Atlas",
      'Dar Baraka',
      'Khaima',
      'Chez Hajja',
      'Le Souk',
    ],
    hours: [
      { weight: 4, periods: [['12:00', '23:00']] },
      {
        weight: 3,
        periods: [
          ['12:00', '15:30'],
          ['19:00', '23:00'],
        ],
      },
      { weight: 1, periods: [['08:00', '22:00']] },
      { weight: 2, periods: [['12:00', '22:30']], closedDay: true },
    ],
    menus: [
      {
        name: 'Cuisine marocaine',
        description: 'Slow-cooked in clay tajines.',
        categories: [
          {
            name: 'Tajines',
            products: [
              { name: 'Tajine de poulet aux citrons confits', price: 80, options: ['portion'], supplements: 'moroccan' },
              { name: 'Tajine de kefta aux œufs', price: 70, options: ['portion'], supplements: 'moroccan' },
              { name: "Tajine d'agneau aux pruneaux", price: 110, options: ['portion'], supplements: 'moroccan' },
            ],
          },
          {
            name: 'Couscous',
            products: [
              { name: 'Couscous royal', price: 95, options: ['portion'] },
              { name: 'Couscous aux sept légumes', price: 70, options: ['portion'] },
              { name: 'Couscous tfaya', price: 90, options: ['portion'] },
            ],
          },
          {
            name: 'Soupes & entrées',
            products: [
              { name: 'Harira', price: 15 },
              { name: 'Bissara', price: 15 },
              { name: 'Zaalouk', price: 25 },
              { name: 'Pastilla au poulet', price: 60 },
              { name: 'Briouates mixtes', price: 35 },
            ],
          },
          {
            name: 'Boissons',
            products: [
              { name: 'Thé à la menthe', price: 15 },
              { name: "Jus d'orange pressé", price: 18 },
              { name: 'Lben', price: 10 },
            ],
          },
        ],
      },
      {
        name: 'Petit-déjeuner',
        description: 'Served until noon.',
        categories: [
          {
            name: 'Petit-déjeuner',
            products: [
              { name: 'Msemen au miel', price: 12 },
              { name: 'Baghrir', price: 12 },
              { name: 'Rghaif au khlii', price: 20 },
              { name: 'Petit-déjeuner beldi', price: 45 },
            ],
          },
        ],
      },
    ],
  },
  {
    name: 'Cafe',
    mainCategory: 'Drinks',
    icon: 'coffee',
    weight: 10,
    tagline: 'Coffee, pastries and breakfast',
    brands: [
      'Café Central',
      'Le Petit Café',
      'Café de la Corniche',
      'Bean & Leaf',
      'Café Gauthier',
      'Espresso Lab',
      'Café Maure',
      'La Tasse',
      'Morning Brew',
      'Café Belle Époque',
    ],
    hours: [
      { weight: 5, periods: [['07:00', '22:00']] },
      { weight: 3, periods: [['06:30', '23:00']] },
      { weight: 1, periods: [['08:00', '20:00']], closedDay: true },
    ],
    menus: [
      {
        name: 'Café',
        description: 'Beans roasted in Casablanca.',
        categories: [
          {
            name: 'Hot drinks',
            products: [
              { name: 'Espresso', price: 12, options: ['drinkSize'], supplements: 'coffee' },
              { name: 'Café au lait', price: 16, options: ['drinkSize', 'milk'], supplements: 'coffee' },
              { name: 'Cappuccino', price: 20, options: ['drinkSize', 'milk'], supplements: 'coffee' },
              { name: 'Latte', price: 22, options: ['drinkSize', 'milk'], supplements: 'coffee' },
              { name: 'Nous-nous', price: 15, options: ['drinkSize'] },
              { name: 'Thé à la menthe', price: 14 },
            ],
          },
          {
            name: 'Cold drinks',
            products: [
              { name: 'Iced latte', price: 25, options: ['milk'], supplements: 'coffee' },
              { name: 'Frappé caramel', price: 32, supplements: 'coffee' },
              { name: "Jus d'orange", price: 18 },
            ],
          },
          {
            name: 'Viennoiseries',
            products: [
              { name: 'Croissant', price: 8 },
              { name: 'Pain au chocolat', price: 10 },
              { name: 'Muffin myrtille', price: 18 },
            ],
          },
        ],
      },
      {
        name: 'Breakfast',
        description: 'Until 11:30.',
        categories: [
          {
            name: 'Breakfast',
            products: [
              { name: 'Petit-déjeuner continental', price: 45 },
              { name: 'Omelette fromage', price: 30 },
              { name: 'Avocado toast', price: 42 },
            ],
          },
        ],
      },
    ],
  },
  {
    name: 'Juice Bar',
    mainCategory: 'Drinks',
    icon: 'juice',
    weight: 5,
    tagline: 'Fresh juices and smoothies',
    brands: ['Jus Frais', 'Vitamine Bar', 'Green Press', 'Orange Bleue', 'Fresh Corner', 'Squeeze', 'Citrus', 'Smoothie Lab'],
    hours: [
      { weight: 5, periods: [['09:00', '23:00']] },
      { weight: 3, periods: [['10:00', '00:00']] },
    ],
    menus: [
      {
        name: 'Juices',
        description: 'Pressed in front of you.',
        categories: [
          {
            name: 'Fresh juices',
            products: [
              { name: "Jus d'orange pressé", price: 18, options: ['juiceSize'], supplements: 'juice' },
              { name: 'Avocat-amande', price: 28, options: ['juiceSize'], supplements: 'juice' },
              { name: 'Panaché', price: 25, options: ['juiceSize'], supplements: 'juice' },
              { name: 'Citronnade menthe', price: 16, options: ['juiceSize'] },
              { name: 'Detox vert', price: 30, options: ['juiceSize'], supplements: 'juice' },
            ],
          },
          {
            name: 'Smoothies & bowls',
            products: [
              { name: 'Smoothie fraise-banane', price: 28, supplements: 'juice' },
              { name: 'Smoothie mangue-passion', price: 30, supplements: 'juice' },
              { name: 'Açaí bowl', price: 55 },
            ],
          },
        ],
      },
    ],
  },
  {
    name: 'Bakery',
    mainCategory: 'Bakery & Pastry',
    icon: 'bread',
    weight: 9,
    tagline: 'Bread, viennoiseries and Moroccan pastries',
    brands: [
      'Pâtisserie Lina',
      'Boulangerie Saint-Honoré',
      'Au Pain Doré',
      'Pâtisserie des Arts',
      'Le Fournil',
      'Pâtisserie Zineb',
      'Boulangerie Moderne',
      "Délices d'Anfa",
      'Pain & Tradition',
      'Pâtisserie Royale',
      "L'Épi d'Or",
    ],
    hours: [
      { weight: 6, periods: [['06:30', '20:30']] },
      { weight: 3, periods: [['07:00', '21:00']], closedDay: true },
    ],
    menus: [
      {
        name: 'Boulangerie',
        description: 'Baked on site.',
        categories: [
          {
            name: 'Pains',
            products: [
              { name: 'Baguette tradition', price: 4 },
              { name: 'Pain complet', price: 8 },
              { name: 'Pain aux céréales', price: 10 },
              { name: 'Khobz beldi', price: 3 },
            ],
          },
          {
            name: 'Viennoiseries',
            products: [
              { name: 'Croissant', price: 6 },
              { name: 'Pain au chocolat', price: 7 },
              { name: 'Chausson aux pommes', price: 9 },
              { name: 'Brioche', price: 12 },
            ],
          },
          {
            name: 'Pâtisseries',
            products: [
              { name: 'Éclair au chocolat', price: 15 },
              { name: 'Millefeuille', price: 16 },
              { name: 'Tarte au citron meringuée', price: 18 },
              { name: 'Cornes de gazelle (6)', price: 45 },
              { name: 'Chebakia (250 g)', price: 30 },
            ],
          },
          {
            name: 'Gâteaux',
            products: [
              { name: 'Fraisier', price: 220, options: ['cakeSize'] },
              { name: 'Forêt-noire', price: 200, options: ['cakeSize'] },
            ],
          },
        ],
      },
    ],
  },
  {
    name: 'Desserts',
    mainCategory: 'Bakery & Pastry',
    icon: 'ice-cream',
    weight: 6,
    tagline: 'Desserts, crêpes and ice cream',
    brands: [
      'Crème & Co',
      'Sweet Corner',
      'Le Comptoir Sucré',
      'Gaufres & Crêpes',
      'Dolce Vita Gelato',
      'Chocolat Chaud',
      'Sugar Rush',
      'La Crêperie',
    ],
    hours: [
      { weight: 5, periods: [['10:00', '23:00']] },
      { weight: 3, periods: [['12:00', '01:00']] },
      { weight: 1, periods: [['11:00', '22:00']], closedDay: true },
    ],
    menus: [
      {
        name: 'Desserts',
        description: 'Made this morning.',
        categories: [
          {
            name: 'Desserts',
            products: [
              { name: 'Crème brûlée', price: 30, supplements: 'dessert' },
              { name: 'Tiramisu', price: 35, supplements: 'dessert' },
              { name: 'Fondant au chocolat', price: 32, supplements: 'dessert' },
              { name: 'Cheesecake', price: 35, supplements: 'dessert' },
              { name: 'Crêpe Nutella', price: 25, supplements: 'dessert' },
              { name: 'Gaufre', price: 25, supplements: 'dessert' },
            ],
          },
          {
            name: 'Glaces',
            products: [
              { name: 'Coupe trois boules', price: 30, supplements: 'dessert' },
              { name: 'Milkshake', price: 28 },
            ],
          },
          {
            name: 'Gâteaux',
            products: [
              { name: 'Layer cake', price: 250, options: ['cakeSize'] },
              { name: 'Bûche glacée', price: 230, options: ['cakeSize'] },
            ],
          },
        ],
      },
    ],
  },
  {
    name: 'Healthy',
    mainCategory: 'Food',
    icon: 'salad',
    weight: 5,
    tagline: 'Bowls, salads and wraps',
    brands: ['Green Bowl', 'Poke Lab', 'Fresh & Fit', 'Salad Box', 'Good Mood Food', 'Veggie Corner', 'Bio Kitchen', 'Vital'],
    hours: [
      { weight: 5, periods: [['10:00', '22:00']] },
      {
        weight: 2,
        periods: [
          ['11:00', '15:00'],
          ['18:30', '22:30'],
        ],
      },
      { weight: 2, periods: [['10:00', '21:00']], closedDay: true },
    ],
    menus: [
      {
        name: 'Healthy',
        description: 'Fresh, seasonal, balanced.',
        categories: [
          {
            name: 'Bowls',
            products: [
              { name: 'Poke bowl saumon', price: 75, options: ['bowlBase', 'dressing'], supplements: 'healthy' },
              { name: 'Bowl poulet teriyaki', price: 65, options: ['bowlBase', 'dressing'], supplements: 'healthy' },
              { name: 'Buddha bowl végétarien', price: 55, options: ['bowlBase', 'dressing'], supplements: 'healthy' },
            ],
          },
          {
            name: 'Salades',
            products: [
              { name: 'Salade niçoise', price: 50, options: ['dressing'], supplements: 'healthy' },
              { name: 'Salade César', price: 55, options: ['dressing'], supplements: 'healthy' },
              { name: 'Salade quinoa avocat', price: 55, options: ['dressing'], supplements: 'healthy' },
            ],
          },
          {
            name: 'Wraps',
            products: [
              { name: 'Wrap poulet', price: 40 },
              { name: 'Wrap falafel', price: 38 },
            ],
          },
          {
            name: 'Boissons',
            products: [
              { name: 'Detox citron gingembre', price: 25 },
              { name: 'Kombucha', price: 28 },
            ],
          },
        ],
      },
    ],
  },
  {
    name: 'Groceries',
    mainCategory: 'Groceries',
    icon: 'cart',
    weight: 7,
    tagline: 'Your neighbourhood grocery',
    brands: [
      'Épicerie du Quartier',
      'Marché Frais',
      'Mini Market Al Baraka',
      'Hanout Chez Ahmed',
      'Superette Atlas',
      'Fresh Market',
      'Épicerie Fine',
      'Marché Express',
    ],
    hours: [
      { weight: 5, periods: [['08:00', '23:00']] },
      { weight: 3, periods: [['00:00', '00:00']] },
      { weight: 2, periods: [['09:00', '22:00']], closedDay: true },
    ],
    menus: [
      {
        name: 'Épicerie',
        description: 'Delivered in 30 minutes.',
        categories: [
          {
            name: 'Fruits & légumes',
            products: [
              { name: 'Bananes (1 kg)', price: 16 },
              { name: 'Tomates (1 kg)', price: 8 },
              { name: 'Avocats (1 kg)', price: 30 },
              { name: 'Pommes (1 kg)', price: 18 },
              { name: 'Oranges (1 kg)', price: 7 },
            ],
          },
          {
            name: 'Crèmerie',
            products: [
              { name: 'Lait demi-écrémé 1 L', price: 8 },
              { name: 'Yaourt nature (4)', price: 12 },
              { name: 'Beurre 250 g', price: 25 },
              { name: 'Œufs (12)', price: 18 },
              { name: 'Fromage Edam 200 g', price: 25 },
            ],
          },
          {
            name: 'Épicerie salée & sucrée',
            products: [
              { name: "Huile d'olive 1 L", price: 75 },
              { name: 'Riz 1 kg', price: 18 },
              { name: 'Pâtes 500 g', price: 9 },
              { name: 'Café moulu 250 g', price: 35 },
              { name: 'Thé vert 200 g', price: 20 },
              { name: 'Sucre 1 kg', price: 9 },
            ],
          },
          {
            name: 'Boissons',
            products: [
              { name: 'Eau minérale 1,5 L', price: 6 },
              { name: 'Coca-Cola 1 L', price: 10 },
              { name: "Jus d'orange 1 L", price: 15 },
            ],
          },
        ],
      },
    ],
  },
  {
    name: 'Pharmacy',
    mainCategory: 'Pharmacy',
    icon: 'cross',
    weight: 4,
    tagline: 'Pharmacy and parapharmacy',
    brands: [
      'Pharmacie Centrale',
      'Pharmacie du Boulevard',
      'Pharmacie Al Amal',
      'Pharmacie de la Gare',
      'Pharmacie Anfa',
      'Pharmacie des Fleurs',
      'Pharmacie Ibn Sina',
      'Pharmacie Nour',
      "Pharmacie de l'Océan",
      'Pharmacie Al Hikma',
    ],
    hours: [
      { weight: 6, periods: [['08:30', '20:30']], closedDay: true },
      { weight: 2, periods: [['09:00', '22:00']] },
      { weight: 2, periods: [['00:00', '00:00']] },
    ],
    menus: [
      {
        name: 'Parapharmacie',
        description: 'Over-the-counter products.',
        categories: [
          {
            name: 'Soins',
            products: [
              { name: 'Crème hydratante', price: 85 },
              { name: 'Écran solaire SPF 50', price: 140 },
              { name: 'Baume à lèvres', price: 35 },
            ],
          },
          {
            name: 'Bébé',
            products: [
              { name: 'Couches taille 3 (40)', price: 110 },
              { name: 'Lingettes bébé', price: 25 },
            ],
          },
          {
            name: 'Santé',
            products: [
              { name: 'Thermomètre digital', price: 60 },
              { name: 'Pansements (20)', price: 20 },
              { name: 'Gel hydroalcoolique', price: 20 },
              { name: 'Vitamine C', price: 45 },
            ],
          },
        ],
      },
    ],
  },
  {
    name: 'Flowers',
    mainCategory: 'Flowers',
    icon: 'flower',
    weight: 2,
    tagline: 'Bouquets delivered the same day',
    brands: [
      'Fleurs de Casa',
      "L'Atelier Floral",
      'Rose & Jasmin',
      'Bouquet Express',
      'Les Jardins de Lina',
      'Fleuriste du Parc',
      'Flora',
      'Pétales',
    ],
    hours: [
      { weight: 6, periods: [['09:00', '20:00']] },
      { weight: 3, periods: [['09:00', '19:00']], closedDay: true },
    ],
    menus: [
      {
        name: 'Fleurs',
        description: 'Hand-tied by our florists.',
        categories: [
          {
            name: 'Bouquets',
            products: [
              { name: 'Bouquet de roses rouges', price: 250, options: ['bouquetSize', 'wrapping'], supplements: 'flowers' },
              { name: 'Bouquet champêtre', price: 200, options: ['bouquetSize', 'wrapping'], supplements: 'flowers' },
              { name: 'Bouquet de tulipes', price: 220, options: ['bouquetSize', 'wrapping'], supplements: 'flowers' },
              { name: 'Orchidée en pot', price: 300, options: ['wrapping'], supplements: 'flowers' },
            ],
          },
          {
            name: 'Compositions',
            products: [
              { name: 'Boîte de roses', price: 350, supplements: 'flowers' },
              { name: 'Composition pivoines', price: 400, supplements: 'flowers' },
            ],
          },
        ],
      },
    ],
  },
];

/**
 * Neighbourhoods by distance from the centre (km ring), each with its rough compass bearing
 * from the centre in degrees (0 = north, 90 = east): a store is placed in the nearest one.
 */
export const NEIGHBOURHOODS: { maxKm: number; places: [string, number][] }[] = [
  {
    maxKm: 3,
    places: [
      ['Sidi Belyout', 10],
      ['Belvédère', 60],
      ['Mers Sultan', 120],
      ['Habous', 155],
      ['Maârif', 230],
      ['Racine', 270],
      ['Gauthier', 295],
      ['Bourgogne', 320],
    ],
  },
  {
    maxKm: 7,
    places: [
      ['Roches Noires', 45],
      ['Hay Mohammadi', 80],
      ['Aïn Chock', 165],
      ['Californie', 180],
      ['Oasis', 200],
      ['Palmier', 215],
      ['Derb Ghallef', 230],
      ['Beauséjour', 250],
      ['Anfa', 285],
    ],
  },
  {
    maxKm: 13,
    places: [
      ['Aïn Sebaâ', 55],
      ['Sidi Bernoussi', 75],
      ['Sbata', 125],
      ['Sidi Maârouf', 195],
      ['Lissasfa', 225],
      ['Hay Hassani', 245],
      ['CIL', 265],
      ['Aïn Diab', 285],
    ],
  },
  {
    maxKm: Infinity,
    places: [
      ['Mohammedia', 60],
      ['Tit Mellil', 95],
      ['Médiouna', 145],
      ['Bouskoura', 185],
      ['Nouaceur', 205],
      ['Dar Bouazza', 245],
    ],
  },
];

export const STREETS = [
  'Boulevard Zerktouni',
  "Boulevard d'Anfa",
  'Rue Allal Ben Abdellah',
  'Avenue Hassan II',
  'Boulevard Mohammed V',
  'Rue Ibnou Mounir',
  'Boulevard Ghandi',
  'Rue Soumaya',
  'Boulevard de la Corniche',
  'Avenue des FAR',
  'Rue Taha Hussein',
  'Boulevard Bir Anzarane',
  'Rue Abou Bakr Seddik',
  'Boulevard Abdelmoumen',
  'Rue Mustapha El Maani',
  'Boulevard Al Massira',
  'Rue Jean Jaurès',
  'Boulevard Brahim Roudani',
  'Rue Tarik Ibn Ziad',
  'Avenue Moulay Youssef',
];

/**
 * The Atlantic shore near Casablanca, west to east, as [longitude, latitude]: with the default
 * centre no store is placed north of it (in the sea).
 */
export const CASABLANCA_SHORE: [number, number][] = [
  [-7.9, 33.5],
  [-7.69, 33.588],
  [-7.656, 33.604],
  [-7.6, 33.603],
  [-7.53, 33.612],
  [-7.38, 33.69],
  [-7.2, 33.78],
];

export const FIRST_NAMES = [
  'Youssef',
  'Amine',
  'Mehdi',
  'Karim',
  'Hamza',
  'Omar',
  'Rachid',
  'Saïd',
  'Nabil',
  'Othmane',
  'Anas',
  'Reda',
  'Fatima Zahra',
  'Salma',
  'Imane',
  'Khadija',
  'Sara',
  'Meryem',
  'Nadia',
  'Houda',
  'Zineb',
  'Leïla',
  'Ghita',
  'Hajar',
];

export const LAST_NAMES = [
  'Alaoui',
  'Benjelloun',
  'Bennani',
  'Berrada',
  'Chraïbi',
  'El Amrani',
  'El Idrissi',
  'Lahlou',
  'Tazi',
  'Naciri',
  'Ouazzani',
  'Kettani',
  'Benkirane',
  'Sqalli',
  'Cherkaoui',
  'Ziani',
  'Bouzidi',
  'El Fassi',
  'Mansouri',
  'Haddad',
];

/** US area codes for generated owner numbers (+1 <area> 555 xxxx): valid, never real people. */
export const OWNER_AREA_CODES = ['415', '628', '650', '408', '510', '707', '925', '310', '323', '213'];

/** Store offers: `{d}` is the discount percentage. */
export const STORE_OFFERS: { title: string; description: string }[] = [
  { title: '{d}% off everything', description: 'On the whole menu, delivery included.' },
  { title: '-{d}% on your first order', description: 'Welcome! For new customers of this store.' },
  { title: 'Weekend deal: {d}% off', description: 'Every Saturday and Sunday.' },
  { title: 'Happy hour -{d}%', description: 'From 15:00 to 18:00.' },
  { title: 'Lunch special {d}% off', description: 'Weekdays from 12:00 to 14:30.' },
  { title: '{d}% de réduction', description: 'Offre spéciale de la maison.' },
];

/** Platform-wide offers: the home screen banners. */
export const GLOBAL_OFFERS: { title: string; description: string; discount: number; slug: string }[] = [
  { title: 'Free delivery weekend', description: 'Delivery on us, all weekend long.', discount: 10, slug: 'free-delivery-weekend' },
  { title: 'Ftour time: 20% off', description: 'Moroccan favourites for breaking the fast.', discount: 20, slug: 'ftour-time' },
  { title: 'New: healthy bowls -15%', description: 'Discover the new healthy places near you.', discount: 15, slug: 'healthy-bowls' },
  { title: 'Back to school: 25% off', description: 'Snacks and supplies for the new year.', discount: 25, slug: 'back-to-school' },
  { title: 'Fête des mères: 30% off flowers', description: 'Bouquets delivered the same day.', discount: 30, slug: 'fete-des-meres' },
];
