// The scenario every emitter runs: the prompt, the two tools and what they
// return. get_weather always succeeds; lookup_stock throws for "ZZZZ" and
// succeeds for any other symbol.
export const PROMPT = 'What is the weather in Paris, and the price of ZZZZ?';
export const INSTRUCTIONS = 'You answer questions about the weather and stock prices using the tools.';

const temperatures = { Paris: [21, 'sunny'], London: [15, 'cloudy'] };

export function getWeather({ city, unit = 'celsius' }) {
  const [temperature, conditions] = temperatures[city] ?? [18, 'clear'];
  return { city, unit, temperature, conditions };
}

export function lookupStock({ symbol }) {
  if (symbol === 'ZZZZ') throw new Error('unknown symbol ZZZZ');
  return { symbol, price: 42.17, currency: 'EUR' };
}

export const WEATHER_DESCRIPTION = 'Get the current weather for a city.';
export const STOCK_DESCRIPTION = 'Look up the latest price of a stock symbol.';

// JSON Schemas of the tools' parameters, for frameworks that take them raw.
export const WEATHER_PARAMETERS = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name' },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'], description: 'Temperature unit' },
  },
  required: ['city', 'unit'],
  additionalProperties: false,
};
export const STOCK_PARAMETERS = {
  type: 'object',
  properties: { symbol: { type: 'string', description: 'Ticker symbol' } },
  required: ['symbol'],
  additionalProperties: false,
};
